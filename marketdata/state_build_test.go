package marketdata

import (
	"slices"
	"testing"
)

// TestRunsOf: each symbol's run of a list sorted by symbol is where the
// list holds it, and the runs of the list before are kept (shared) when
// they are the same, not when a run moved, grew or is new.
func TestRunsOf(t *testing.T) {
	type rec struct{ sym, id string }
	listOf := func(items ...string) (list []*rec) {
		for _, s := range items {
			list = append(list, &rec{sym: s[:1], id: s[2:]})
		}
		return list
	}
	symbol := func(r *rec) string { return r.sym }
	ids := func(list []*rec, r *symbolRuns, sym string) (out []string) {
		lo, hi, ok := r.run(sym)
		if !ok {
			return nil
		}
		for _, x := range list[lo:hi] {
			out = append(out, x.id)
		}
		return out
	}
	base := listOf("A:1", "A:2", "B:3", "C:4", "C:5", "C:6")
	prev := runsOf(base, symbol, nil)
	for sym, want := range map[string][]string{"A": {"1", "2"}, "B": {"3"}, "C": {"4", "5", "6"}, "D": nil} {
		if got := ids(base, prev, sym); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", sym, got, want)
		}
	}
	cases := []struct {
		name string
		list []*rec
		same bool
	}{
		{"the same runs, other orders", listOf("A:7", "A:8", "B:9", "C:1", "C:2", "C:3"), true},
		{"a run grew", listOf("A:1", "A:2", "A:9", "B:3", "C:4", "C:5", "C:6"), false},
		{"a run is gone", listOf("A:1", "A:2", "C:4", "C:5", "C:6"), false},
		{"a run is new", listOf("A:1", "A:2", "B:3", "C:4", "C:5", "C:6", "D:7"), false},
		{"one symbol less at the end", listOf("A:1", "A:2", "B:3"), false},
		{"empty", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runsOf(c.list, symbol, prev)
			if (got == prev) != c.same {
				t.Fatalf("shared %v, want %v", got == prev, c.same)
			}
			for _, x := range c.list {
				if !slices.Contains(ids(c.list, got, x.sym), x.id) {
					t.Errorf("%s:%s is not in its run %v", x.sym, x.id, ids(c.list, got, x.sym))
				}
			}
		})
	}
	if _, _, ok := (*symbolRuns)(nil).run("A"); ok {
		t.Error("no runs found a run")
	}
}
