package launch

import (
	"errors"
	"strings"
)

// splitWords splits s into words the way a POSIX shell splits a command
// line, without expanding anything: blanks separate words; single quotes
// keep everything up to the next single quote; double quotes keep
// everything but a backslash before one of \ " $ ` ; outside quotes a
// backslash keeps the next character. It is how --launcher-args is read,
// so options can be written as they would be on the launcher's own
// command line.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
			continue
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += 1 + end
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\\\"$`", s[j+1]) >= 0 {
					j++
				}
				w.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, errors.New("unterminated double quote")
			}
			i = j
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("backslash at the end")
			}
			i++
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// quoteWord quotes w for a POSIX shell when it needs quoting, so a printed
// command line can be pasted back into a shell.
func quoteWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// joinWords quotes and joins words into one command line.
func joinWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}
