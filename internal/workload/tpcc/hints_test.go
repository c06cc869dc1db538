package tpcc

import (
	"sync"
	"testing"
)

func TestDeliveredHints(t *testing.T) {
	h := newDeliveredHints(2)
	if got := h.lowerBound(2, 10); got != 0 {
		t.Fatalf("fresh bound %d", got)
	}
	h.committed(2, 10, 3000)
	h.committed(2, 10, 2990) // a slower terminal's older order keeps the bound
	if got := h.lowerBound(2, 10); got != 3001 {
		t.Errorf("bound %d, want 3001", got)
	}
	if got := h.lowerBound(1, 10) + h.lowerBound(2, 9); got != 0 {
		t.Errorf("other districts moved: %d", got)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for oid := int64(i); oid < 5000; oid += 8 {
				h.committed(1, 1, oid)
			}
		})
	}
	wg.Wait()
	if got := h.lowerBound(1, 1); got != 5000 {
		t.Errorf("concurrent bound %d, want 5000", got)
	}
}
