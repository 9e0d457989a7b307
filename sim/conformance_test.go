package sim_test

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// inProcess is the conformance harness of the in-process Venue: a fresh
// exchange on a virtual clock at the scenario start.
func inProcess(t *testing.T, sc *sim.Scenario) simtest.Harness {
	t.Helper()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	x, vc := simRig.Exchange, simRig.Virtual
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
	t.Parallel()
	simtest.RunConformance(t, inProcess)
}
