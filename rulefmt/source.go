package rulefmt

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Source is one rule file as read and as parsed: the author's lines, the
// lines after ${ENV} substitution (what YAML sees) and, per line, where the
// substitutions are, so that every position YAML or expr reports in the
// substituted text maps back to the column the author sees.
type Source struct {
	Path     string
	Orig     []string
	Expanded []string
	subs     [][]substitution // per 0-based line, in column order
	runes    [][]rune         // expanded lines as runes, built on first use
}

func (s *Source) expandedRunes() [][]rune {
	if s.runes == nil {
		s.runes = make([][]rune, len(s.Expanded))
		for i, l := range s.Expanded {
			s.runes[i] = []rune(strings.TrimRight(l, "\r"))
		}
	}
	return s.runes
}

// substitution is one ${NAME} replaced in a line. Columns are 1-based runes.
type substitution struct {
	expCol, expLen   int // in the substituted line
	origCol, origLen int // in the author's line
}

// Pos is a 1-based line and column in the substituted text.
type Pos struct{ Line, Col int }

// OrigCol maps the column col of the substituted line (1-based) back to the
// author's line: a column inside a substituted value points at its "$".
func (s *Source) OrigCol(line, col int) int {
	if line < 1 || line > len(s.subs) {
		return col
	}
	delta := 0
	for _, sub := range s.subs[line-1] {
		if col < sub.expCol {
			break
		}
		if col < sub.expCol+sub.expLen {
			return sub.origCol
		}
		delta += sub.origLen - sub.expLen
	}
	return col + delta
}

// ErrorAt builds a finding at p (substituted coordinates).
func (s *Source) ErrorAt(p Pos, sev Severity, msg, hint string) *Error {
	e := &Error{File: s.Path, Line: p.Line, Column: p.Col, Severity: sev, Message: msg, Hint: hint}
	if p.Line >= 1 && p.Line <= len(s.Orig) {
		e.Column = s.OrigCol(p.Line, p.Col)
		e.Source = s.OrigLine(p.Line)
	}
	return e
}

// OrigLine returns the author's text of the 1-based line.
func (s *Source) OrigLine(line int) string {
	if line < 1 || line > len(s.Orig) {
		return ""
	}
	return strings.TrimRight(s.Orig[line-1], "\r")
}

// NodePos is where a YAML node starts.
func NodePos(n *yaml.Node) Pos { return Pos{n.Line, n.Column} }

// ScalarPositions returns, for each rune of the scalar's value, where that
// rune is in the substituted text. It follows the value through the source
// for every scalar style (plain, quoted, literal and folded blocks with their
// indentation), skipping what YAML removed: quotes, escapes, indentation and
// folded line breaks. When the value cannot be followed (an exotic escape)
// it returns nil and callers fall back to the node's start.
func (s *Source) ScalarPositions(n *yaml.Node) []Pos {
	if n.Kind != yaml.ScalarNode || n.Line < 1 || n.Line > len(s.Expanded) {
		return nil
	}
	t := &textCursor{lines: s.expandedRunes(), Line: n.Line - 1, Col: n.Column - 1}
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		t.nextLine() // the header line holds only | or > and its indicators
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		t.advance() // the opening quote
	}
	double := n.Style&yaml.DoubleQuotedStyle != 0
	single := n.Style&yaml.SingleQuotedStyle != 0
	out := make([]Pos, 0, utf8.RuneCountInString(n.Value))
	for _, r := range n.Value {
		for {
			c, ok := t.peek()
			if !ok {
				return nil
			}
			switch {
			case double && c == '\\':
				next, _ := t.peekAt(1)
				if next == '\n' { // escaped line break: joins lines
					t.advance()
					t.advance()
					continue
				}
				if escapeValue(next) != r {
					return nil
				}
				out = append(out, t.at())
				t.advance()
				t.advance()
			case single && c == '\'' && r == '\'':
				out = append(out, t.at())
				t.advance()
				t.advance()
			case c == r:
				out = append(out, t.at())
				t.advance()
			case isBlank(r) && isBlank(c):
				// Folding turned a line break (or run of blanks) into this blank.
				out = append(out, t.at())
				t.advance()
			case isBlank(c):
				t.advance() // indentation or a blank folding removed
				continue
			default:
				return nil
			}
			break
		}
	}
	return out
}

func isBlank(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// escapeValue is the rune a YAML double-quoted escape stands for, for the
// escapes an author plausibly writes; others stop position tracking.
func escapeValue(r rune) rune {
	switch r {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case '"', '\\', '/', ' ':
		return r
	case '0':
		return 0
	}
	return utf8.RuneError
}

// textCursor walks runes of a list of lines, with line breaks between them.
type textCursor struct {
	lines [][]rune
	Line  int // 0-based
	Col   int // 0-based rune index; == len(line) means at the line break
}

func (t *textCursor) peekAt(k int) (rune, bool) {
	line, col := t.Line, t.Col
	for ; k > 0; k-- {
		line, col = step(t.lines, line, col)
	}
	if line >= len(t.lines) {
		return 0, false
	}
	if col >= len(t.lines[line]) {
		if line == len(t.lines)-1 {
			return 0, false
		}
		return '\n', true
	}
	return t.lines[line][col], true
}

func (t *textCursor) peek() (rune, bool) { return t.peekAt(0) }

func step(lines [][]rune, line, col int) (int, int) {
	if line < len(lines) && col < len(lines[line]) {
		return line, col + 1
	}
	return line + 1, 0
}

func (t *textCursor) advance() { t.Line, t.Col = step(t.lines, t.Line, t.Col) }

func (t *textCursor) nextLine() { t.Line, t.Col = t.Line+1, 0 }

func (t *textCursor) at() Pos { return Pos{t.Line + 1, t.Col + 1} }

// OffsetInText returns the 0-based rune offset of the 1-based line and
// column in text (an expression's own coordinates), clamped to the text.
func OffsetInText(text string, line, col int) int {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	off, l := 0, 1
	rs := []rune(text)
	for off < len(rs) && l < line {
		if rs[off] == '\n' {
			l++
		}
		off++
	}
	off += col - 1
	if off >= len(rs) {
		off = len(rs) - 1
	}
	if off < 0 {
		off = 0
	}
	return off
}
