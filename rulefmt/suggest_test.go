package rulefmt

import (
	"fmt"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"market", "market", 0},
		{"markt", "market", 1},
		{"markte", "market", 1}, // transposition
		{"sprd", "spread", 2},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"prïce", "price", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	words := []string{"market", "positions", "stock", "position", "spread", "spread_bps", "now"}
	for _, tc := range []struct{ word, want string }{
		{"markt", "market"},
		{"MARKET", "market"},
		{"postion", "position"},
		{"positons", "positions"},
		{"sprd", "spread"},
		{"spread_bp", "spread_bps"},
		{"nwo", "now"},
		{"x", ""},
		{"completely", ""},
		{"", ""},
		{"stock", "stock"},
	} {
		if got := Suggest(tc.word, words); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func ExampleSuggest() {
	fmt.Println(Suggest("markt", []string{"now", "market", "positions"}))
	// Output: market
}
