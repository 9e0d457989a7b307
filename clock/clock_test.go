package clock

import (
	"testing"
	"time"
)

func TestVirtualFiresInOrder(t *testing.T) {
	start := time.Date(2026, 3, 9, 13, 30, 0, 0, time.UTC)
	v := NewVirtual(start)
	a := v.After(2 * time.Second)
	b := v.After(time.Second)
	v.Advance(500 * time.Millisecond)
	select {
	case <-a:
		t.Fatal("a fired early")
	case <-b:
		t.Fatal("b fired early")
	default:
	}
	v.Advance(time.Second)
	if got := <-b; !got.Equal(start.Add(1500 * time.Millisecond)) {
		t.Errorf("b fired at %v", got)
	}
	if v.Waiters() != 1 {
		t.Errorf("waiters = %d, want 1", v.Waiters())
	}
	v.Set(start) // never backwards
	if !v.Now().Equal(start.Add(1500 * time.Millisecond)) {
		t.Errorf("Set moved the clock backwards to %v", v.Now())
	}
	v.Advance(time.Second)
	<-a
	if v.Waiters() != 0 {
		t.Errorf("waiters = %d, want 0", v.Waiters())
	}
}

func TestVirtualWaitForWaiters(t *testing.T) {
	v := NewVirtual(time.Unix(0, 0))
	done := make(chan struct{})
	got := make(chan time.Time)
	go func() { got <- <-v.After(time.Minute) }()
	if !v.WaitForWaiters(1, done) {
		t.Fatal("waiter never registered")
	}
	v.Advance(time.Minute)
	if tm := <-got; !tm.Equal(time.Unix(60, 0)) {
		t.Errorf("fired at %v", tm)
	}
	close(done)
	if v.WaitForWaiters(5, done) {
		t.Error("WaitForWaiters reported success after done closed")
	}
}

func TestVirtualNonPositiveFiresAtOnce(t *testing.T) {
	v := NewVirtual(time.Unix(100, 0))
	select {
	case <-v.After(0):
	default:
		t.Fatal("After(0) did not fire at once")
	}
}
