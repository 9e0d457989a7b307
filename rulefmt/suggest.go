package rulefmt

import (
	"strings"
	"unicode/utf8"
)

// Suggest returns the candidate closest to word, for "did you mean ...?"
// hints on variables, fields, functions, stock pairs, keys and action names.
// Case is ignored when measuring. It returns "" when nothing is close
// enough: at most 1 edit for words up to 3 letters, 2 up to 6 and 3 beyond,
// and fewer edits than the word has letters. Ties go to the earlier
// candidate, so callers control preference by order.
func Suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	n := utf8.RuneCountInString(word)
	limit := 3
	switch {
	case n <= 3:
		limit = 1
	case n <= 6:
		limit = 2
	}
	lw := strings.ToLower(word)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word {
			return c
		}
		d := Distance(lw, strings.ToLower(c))
		if d < bestD && d < n {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the optimal-string-alignment (restricted Damerau-Levenshtein)
// distance between a and b in runes: insertions, deletions, substitutions
// and transpositions of adjacent runes each cost 1, so "markte" is one edit
// from "market".
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rolling rows: two back for transpositions.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
