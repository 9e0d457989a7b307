package rulefmt

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestScalarPositions follows a value through every scalar style and
// checks where one marked rune of the value is in the file.
func TestScalarPositions(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		mark      string // a substring of the value; its first rune is looked up
		line, col int
	}{
		{"plain", "k: abc markt def\n", "markt", 1, 8},
		{"plain multi-line", "k: abc\n  markt def\n", "markt", 2, 3},
		{"double quoted with escapes", "k: \"a \\\"b\\\" markt\"\n", "markt", 1, 13},
		{"single quoted with doubled quote", "k: 'it''s markt'\n", "markt", 1, 11},
		{"literal block", "k: |\n  one\n    two markt\n", "markt", 3, 9},
		{"folded block", "k: >\n  one\n  two markt\n", "markt", 3, 7},
		{"folded block with keep indicator", "k: >-\n    one\n    markt\n", "markt", 3, 5},
		{"flow mapping", "k: { a: 1, b: =x + markt }\n", "markt", 1, 20},
		{"unicode before", "k: \"héllo markt\"\n", "markt", 1, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, errs := ExpandEnv("t.yaml", []byte(tt.yaml), nil, "")
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.yaml), &doc); err != nil {
				t.Fatal(err)
			}
			n := findScalar(&doc, tt.mark)
			if n == nil {
				t.Fatalf("no scalar contains %q", tt.mark)
			}
			ps := src.ScalarPositions(n)
			if ps == nil {
				t.Fatalf("value %q could not be followed", n.Value)
			}
			if len(ps) != len([]rune(n.Value)) {
				t.Fatalf("%d positions for %d runes", len(ps), len([]rune(n.Value)))
			}
			off := len([]rune(n.Value[:strings.Index(n.Value, tt.mark)]))
			if got := ps[off]; got.Line != tt.line || got.Col != tt.col {
				t.Errorf("%q of %q at %d:%d, want %d:%d", tt.mark, n.Value, got.Line, got.Col, tt.line, tt.col)
			}
		})
	}
}

func findScalar(n *yaml.Node, mark string) *yaml.Node {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, mark) {
		return n
	}
	for _, c := range n.Content {
		if f := findScalar(c, mark); f != nil {
			return f
		}
	}
	return nil
}

func TestOffsetInText(t *testing.T) {
	tests := []struct {
		text      string
		line, col int
		want      int
	}{
		{"abc", 1, 1, 0},
		{"abc", 1, 3, 2},
		{"ab\ncd", 2, 1, 3},
		{"ab\ncd", 2, 2, 4},
		{"ab", 1, 9, 1}, // clamped
		{"", 1, 1, 0},
		{"é\nx", 2, 1, 2},
	}
	for _, tt := range tests {
		if got := OffsetInText(tt.text, tt.line, tt.col); got != tt.want {
			t.Errorf("offsetInText(%q, %d, %d) = %d, want %d", tt.text, tt.line, tt.col, got, tt.want)
		}
	}
}
