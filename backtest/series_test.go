package backtest

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/sim"
)

// wave is the sample rows of a run of n samples: one equity, one price
// and one price that is missing now and then, with a spike of each at its
// own sample.
func wave(n, spike int) []sampleRow {
	rows := make([]sampleRow, n)
	t0 := time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)
	for i := range rows {
		eq := 1000 + 10*math.Sin(float64(i)/50)
		px := 100 + math.Cos(float64(i)/70)
		if i == spike {
			eq, px = 5, 900
		}
		missing := fmt.Sprint(px)
		if i%7 == 0 {
			missing = ""
		}
		rows[i] = sampleRow{t: t0.Add(time.Duration(i) * time.Minute), equity: []decimal.Decimal{decimal.NewFromFloat(eq).Round(2)},
			prices: []string{fmt.Sprint(px), missing}}
	}
	return rows
}

func TestSeriesKeeper(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		n, limit  int
		keepsAll  bool
		maxRows   int
		spikeAt   int
		expectedN int // what the keeper is told; n unless the estimate is off
	}{
		{"short run keeps every sample", 500, 1000, true, 500, 123, 500},
		{"at the limit keeps every sample", 1000, 1000, true, 1000, 999, 1000},
		{"long run is bounded", 50_000, 1000, false, 1000 + 8, 31_337, 50_000},
		{"spike in the last sample", 50_000, 1000, false, 1000 + 8, 49_999, 50_000},
		{"more samples than expected", 60_000, 1000, false, 1200 + 8, 55_555, 50_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows := wave(c.n, c.spikeAt)
			k := newSeriesKeeper(c.expectedN)
			k.limit = c.limit
			for _, r := range rows {
				k.add(r)
			}
			got := k.kept()
			if c.keepsAll {
				if !reflect.DeepEqual(got, rows) {
					t.Fatalf("kept %d of %d samples, want all unchanged", len(got), len(rows))
				}
				return
			}
			if len(got) > c.maxRows || len(got) < c.limit/4 {
				t.Errorf("kept %d rows, want between %d and %d", len(got), c.limit/4, c.maxRows)
			}
			// Every kept row is a sample of the run, in order.
			j := 0
			for _, g := range got {
				for j < len(rows) && !rows[j].t.Equal(g.t) {
					j++
				}
				if j == len(rows) || !reflect.DeepEqual(g, rows[j]) {
					t.Fatalf("kept row at %s is not a sample of the run, in order", g.t)
				}
			}
			if !got[0].t.Equal(rows[0].t) || !got[len(got)-1].t.Equal(rows[len(rows)-1].t) {
				t.Errorf("first and last samples not kept: %s..%s", got[0].t, got[len(got)-1].t)
			}
			spike := rows[c.spikeAt].t
			if !slices.ContainsFunc(got, func(r sampleRow) bool { return r.t.Equal(spike) }) {
				t.Errorf("the spike at %s was dropped", spike)
			}
		})
	}
}

// TestDownsampledReport runs the same backtest keeping every sample and
// keeping few: the firings, orders, fills and summary (taken from every
// sample) must be the same, and the kept samples a subset of all.
func TestDownsampledReport(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	run := func(limit int) *Report {
		opts := Options{Scenario: sim.Demo(), RuleDirs: []string{"../examples/rules"}, From: demoStart.Add(25 * time.Minute),
			To: demoStart.Add(3 * time.Hour), SampleEvery: 5 * time.Second, Getenv: func(k string) string {
				return map[string]string{"TSLA_DIP_SIZE": "2"}[k]
			}}
		if err := opts.defaults(); err != nil {
			t.Fatal(err)
		}
		r, err := newRunner(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		r.smp.series.limit = limit
		rep, err := r.run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	all, few := run(1_000_000), run(300)
	if len(few.Equity) >= len(all.Equity)/2 || len(few.Equity) > 300+20 {
		t.Fatalf("kept %d of %d samples, want at most about 300", len(few.Equity), len(all.Equity))
	}
	if len(all.Fills) == 0 {
		t.Fatal("the run filled nothing: the comparison exercises little")
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"summary", few.Summary, all.Summary},
		{"firings", few.Firings, all.Firings},
		{"fills", few.Fills, all.Fills},
		{"positions", few.Positions, all.Positions},
		{"sessions", few.Sessions, all.Sessions},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s differ when few samples are kept", c.name)
		}
	}
	index := map[string]int{}
	for i, e := range all.Equity {
		index[e.Time] = i
	}
	for j, e := range few.Equity {
		i, ok := index[e.Time]
		if !ok || !reflect.DeepEqual(e, all.Equity[i]) {
			t.Fatalf("kept sample %s is not a sample of the full run", e.Time)
		}
		for s := range all.Prices {
			if few.Prices[s].Prices[j] != all.Prices[s].Prices[i] {
				t.Fatalf("%s price at %s differs", all.Prices[s].Symbol, e.Time)
			}
		}
	}
}
