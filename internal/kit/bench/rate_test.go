package bench

import (
	"math"
	"testing"
)

func TestRateAndQuotient(t *testing.T) {
	if got := Rate(10, 4); got != 2.5 {
		t.Errorf("Rate(10, 4) = %v", got)
	}
	if got := Rate(10, 0); got != 0 {
		t.Errorf("Rate(10, 0) = %v, want 0", got)
	}
	if got := Quotient(3, 2); got != 1.5 {
		t.Errorf("Quotient(3, 2) = %v", got)
	}
	if !math.IsNaN(Quotient(1, 0)) {
		t.Error("Quotient(1, 0) is not NaN")
	}
}
