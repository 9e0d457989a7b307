package sim_test

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// inProcess is the conformance harness of the in-process Venue: a fresh
// exchange on a virtual clock at the scenario start.
func inProcess(t *testing.T, sc *sim.Scenario) simtest.Harness {
	t.Helper()
	vc := clock.NewVirtual(sc.Clock.Start)
	x, err := sim.New(sc, sim.Options{Clock: vc})
	if err != nil {
		t.Fatal(err)
	}
	return simtest.Harness{
		Venue: func(key string) exchange.Venue {
			a, ok := x.Account(key)
			if !ok {
				t.Fatalf("no account %s", key)
			}
			return a
		},
		Advance: func(d time.Duration) { vc.Advance(d) },
	}
}

func TestConformanceInProcess(t *testing.T) {
	simtest.RunConformance(t, inProcess)
}
