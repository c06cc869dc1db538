package engine

import (
	"testing"
	"time"
)

// TestProbeAddsHandshakesThatFollowEachOther: a host list's handshakes,
// one after the other, add up; a driver's monitor and pool handshaking
// at once count once, so the time never exceeds the wall clock.
func TestProbeAddsHandshakesThatFollowEachOther(t *testing.T) {
	p := &TLSProbe{}
	p.Reset()
	t0 := time.Now()
	p.Dialed = t0
	p.spanHandshake(t0.Add(2 * time.Millisecond))
	p.Dialed = t0.Add(5 * time.Millisecond)
	p.spanHandshake(t0.Add(8 * time.Millisecond))
	if h := p.Last(); h.Handshakes != 2 || h.HandshakeTime != 5*time.Millisecond {
		t.Errorf("one after the other: %d handshakes, %v, want 2 and 5ms", h.Handshakes, h.HandshakeTime)
	}
	p.Reset()
	p.Dialed = t0
	p.Dialed = t0.Add(time.Millisecond) // a second dial before the first handshake ends
	p.spanHandshake(t0.Add(3 * time.Millisecond))
	p.spanHandshake(t0.Add(4 * time.Millisecond))
	if h := p.Last(); h.Handshakes != 2 || h.HandshakeTime != 3*time.Millisecond {
		t.Errorf("at once: %d handshakes, %v, want 2 and 3ms (the union)", h.Handshakes, h.HandshakeTime)
	}
}
