package bench

import "math"

// Rate is amount / seconds, or 0 when no time passed (nothing to divide by
// is reported as nothing delivered rather than infinity, which JSON cannot
// carry).
func Rate(amount, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return amount / seconds
}

// Quotient is a / b, or NaN when b is 0.
func Quotient(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}
