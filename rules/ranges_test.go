package rules

import (
	"testing"

	"github.com/expr-lang/expr/parser"
)

func TestRangeFindings(t *testing.T) {
	for _, tc := range []struct {
		src string
		msg string // "" when nothing is found
		fix string
		at  int
	}{
		{`x > 300 && x < 200`, `this condition can never be true: x > 300 and x < 200 cannot both hold`, `x > 200 && x < 300`, 8},
		{`x >= 5 && x < 5`, `this condition can never be true: x >= 5 and x < 5 cannot both hold`, ``, 7},
		{`x >= 5 && x <= 5`, ``, ``, 0},
		{`x == 5 && x != 5`, `this condition can never be true: x == 5 and x != 5 cannot both hold`, `x == 5 || x != 5`, 7},
		{`x == 1 && x == 2`, `this condition can never be true: x == 1 and x == 2 cannot both hold`, `x == 1 || x == 2`, 7},
		{`x > 1 && y < 0 && x < 0`, `this condition can never be true: x > 1 and x < 0 cannot both hold`, ``, 15},
		{`x > 1 && x < 5`, ``, ``, 0},
		{`x > 1 && x < 5 && x > 2 && x > 7`, `this condition can never be true: x > 1 and x < 5 and x > 2 and x > 7 cannot all hold at once`, ``, 24},
		{`x < -1 && x > 1`, `this condition can never be true: x < -1 and x > 1 cannot both hold`, ``, 7},
		{`300 < x && x < 200`, `this condition can never be true: 300 < x and x < 200 cannot both hold`, `200 < x && x < 300`, 8},
		{`s == "a" && s == "b"`, `this condition can never be true: s == "a" and s == "b" cannot both hold`, `s == "a" || s == "b"`, 9},
		{`s != "a" || s != "b"`, `this condition is always true: every value of s meets s != "a" or s != "b"`, `s != "a" && s != "b"`, 9},
		{`s != "a" && s != "b"`, ``, ``, 0},
		{`x > 200 or x < 300`, `this condition is always true: every value of x meets x > 200 or x < 300`, `x > 200 and x < 300`, 8},
		{`x > 300 || x < 200`, ``, ``, 0},
		{`a && (x > 3 || x <= 3)`, `this condition is always true: every value of x meets x > 3 or x <= 3`, `a && (x > 3 && x <= 3)`, 12},
		{`x > 3 && "a" == x`, ``, ``, 0}, // a type error, reported by the compiler
		{`f(x) > 1 && f(x) < 0`, `this condition can never be true: f(x) > 1 and f(x) < 0 cannot both hold`, `f(x) > 0 && f(x) < 1`, 9},
	} {
		t.Run(tc.src, func(t *testing.T) {
			tree, err := parser.Parse(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			got := rangeFindings(tc.src, tree.Node)
			if tc.msg == "" {
				if len(got) > 0 {
					t.Fatalf("found %q", got[0].msg)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d findings", len(got))
			}
			if got[0].msg != tc.msg || got[0].fix != tc.fix || got[0].at != tc.at {
				t.Errorf("got %q fix %q at %d\nwant %q fix %q at %d", got[0].msg, got[0].fix, got[0].at, tc.msg, tc.fix, tc.at)
			}
		})
	}
}
