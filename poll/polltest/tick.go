package polltest

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/marketdata"
)

// Source is what Tick drives: the live poller and the backtest's source of
// States both have it.
type Source interface {
	PollDue(ctx context.Context) error
	State(now time.Time) (*marketdata.State, error)
}

// Tick advances v by a second, polls what is due and returns the State of
// that second, failing t on any error.
func Tick(t testing.TB, s Source, v *clock.Virtual) *marketdata.State {
	t.Helper()
	v.Advance(time.Second)
	if err := s.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := s.State(v.Now())
	if err != nil {
		t.Fatal(err)
	}
	return st
}
