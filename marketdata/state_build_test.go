package marketdata

import (
	"slices"
	"testing"
)

// TestRunsBySymbol: each symbol maps to its run of the sorted list, in the
// list's order, and appending to one run leaves the next as it was.
func TestRunsBySymbol(t *testing.T) {
	type rec struct{ sym, id string }
	ids := func(rs []*rec) (out []string) {
		for _, r := range rs {
			out = append(out, r.id)
		}
		return out
	}
	cases := []struct {
		name string
		list []string // "SYM:id", sorted by symbol
		want map[string][]string
	}{
		{"none", nil, nil},
		{"one", []string{"A:1"}, map[string][]string{"A": {"1"}}},
		{"runs", []string{"A:1", "A:2", "B:3", "C:4", "C:5", "C:6"}, map[string][]string{"A": {"1", "2"}, "B": {"3"}, "C": {"4", "5", "6"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var list []*rec
			for _, s := range c.list {
				list = append(list, &rec{sym: s[:1], id: s[2:]})
			}
			got := runsBySymbol(list, func(r *rec) string { return r.sym })
			if len(got) != len(c.want) {
				t.Fatalf("%d symbols, want %d", len(got), len(c.want))
			}
			for sym, want := range c.want {
				if g := ids(got[sym]); !slices.Equal(g, want) {
					t.Errorf("%s: %v, want %v", sym, g, want)
				}
			}
			if a, b := got["A"], got["B"]; a != nil && b != nil {
				_ = append(a, &rec{sym: "A", id: "x"})
				if ids(got["B"])[0] != "3" {
					t.Error("an append to A's run wrote over B's")
				}
			}
		})
	}
}
