package engine

import (
	"testing"
	"time"
)

func TestRingLast(t *testing.T) {
	r := newRing(3)
	if _, ok := r.last(); ok {
		t.Fatal("an empty ring has a last trace")
	}
	at := time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)
	for i := int64(1); i <= 7; i++ { // wraps around twice
		tr := Trace{At: at.Add(time.Duration(i) * time.Second), Tick: i, Phase: PhaseInactive, Reason: ReasonFalse}
		if i == 5 {
			tr.Detail = "stale or missing data: stock_book" // a full trace
		}
		r.push(&tr)
		got, ok := r.last()
		if !ok || got.Tick != i || !got.At.Equal(tr.At) || got.Detail != tr.Detail {
			t.Errorf("after push %d: last %+v", i, got)
		}
		if list := r.list(); list[len(list)-1].Tick != got.Tick {
			t.Errorf("after push %d: last %d, list ends at %d", i, got.Tick, list[len(list)-1].Tick)
		}
	}
}
