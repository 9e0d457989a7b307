package rulefmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExpandEnv feeds arbitrary rule-file text to the ${ENV} expansion, the
// first decoder every rule file goes through. It checks what the positions
// of every later finding rely on: lines never move, text without "$" is left
// as written, findings point inside the file, and every column of an
// expanded line maps back to some column of the author's line.
func FuzzExpandEnv(f *testing.F) {
	for _, seed := range []string{
		"size: ${SIZE}\n",
		"a: ${UNSET:-7} # ${IGNORED}\n",
		"x: $${LITERAL} ${\n",
		"k: \"${Q}\" 'é${SIZE}'\r\nnext: ${BAD-NAME}\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	getenv := func(name string) string {
		if name == "SIZE" || name == "Q" {
			return "long-value"
		}
		return ""
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src, errs := ExpandEnv("f.yaml", data, getenv, "")
		if len(src.Expanded) != len(src.Orig) {
			t.Fatalf("%d lines became %d", len(src.Orig), len(src.Expanded))
		}
		if !strings.Contains(string(data), "$") {
			for i := range src.Orig {
				if src.Expanded[i] != src.Orig[i] {
					t.Fatalf("line %d without $ changed: %q -> %q", i+1, src.Orig[i], src.Expanded[i])
				}
			}
			if len(errs) != 0 {
				t.Fatalf("text without $ gave findings: %v", errs)
			}
		}
		for _, e := range errs {
			if e.Line < 1 || e.Line > len(src.Orig) || e.Column < 0 {
				t.Fatalf("finding outside the file (%d lines): %+v", len(src.Orig), e)
			}
		}
		for i, line := range src.Expanded {
			for col := 1; col <= utf8.RuneCountInString(line)+1; col++ {
				if got := src.OrigCol(i+1, col); got < 1 {
					t.Fatalf("line %d column %d maps to column %d", i+1, col, got)
				}
			}
		}
	})
}

// FuzzParse feeds arbitrary bytes to Parse, the first reader of every rule
// file: it must not panic, every finding must name the file and a line of
// it, and a file it calls read must have its source.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"rules:\n  - name: a\n    when: true\n    actions: [log: {message: x}]\n",
		"rules:\n  - name: a\n    for: 30\n    once: daily\n    enabled: yes\n    priority: x\n",
		"- a\n", "clock: {}\nprices: {}\n", "tests: []\n", "rules: []\n---\nrules: []\n",
		"rules:\n  - &a {name: x}\n  - *a\n", "defaults: {<<: {}}\nrules: [1]\n", "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, errs := Parse("r.yaml", data, ParseOptions{})
		if file.Read && file.Source == nil {
			t.Fatal("read without a source")
		}
		lines := strings.Count(string(data), "\n") + 2
		for _, e := range errs {
			if e.File != "r.yaml" || e.Line < 0 || e.Line > lines {
				t.Fatalf("finding %+v outside the file of %d lines", e, lines)
			}
		}
	})
}
