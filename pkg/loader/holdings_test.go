package loader

import "testing"

func TestHoldings(t *testing.T) {
	h := newHoldings(2)
	if !h.give(0, 1) || !h.give(0, 2) || !h.give(1, 3) {
		t.Fatal("give to open learners refused")
	}
	if give, err := h.take(0, 1); !give || err != nil {
		t.Fatalf("take held batch = %v, %v", give, err)
	}
	if _, err := h.take(1, 1); err == nil {
		t.Fatal("take of a batch the learner does not hold: want error")
	}
	if ids := h.close(0); len(ids) != 1 || ids[0] != 2 {
		t.Fatalf("close returned %v, want [2]", ids)
	}
	if h.give(0, 4) {
		t.Fatal("give to a closed learner accepted")
	}
	if give, err := h.take(0, 2); give || err != nil {
		t.Fatalf("late release after close = %v, %v; want false, nil", give, err)
	}
	if give, err := h.take(1, 3); !give || err != nil {
		t.Fatalf("other learner unaffected: %v, %v", give, err)
	}
}
