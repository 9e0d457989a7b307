package rulefmt

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Severity says whether a finding stops the rules from loading.
type Severity string

// Severities. A warning is a likely mistake the loader cannot prove (a
// percent written where a ratio is meant); it is shown but does not fail.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Error is one finding in a rule file, at a 1-based line and column. Source
// is the text of that line as the author wrote it (before ${ENV}
// substitution), so the rendering can point at it with a caret.
type Error struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"`
	Source   string   `json:"source,omitempty"`
}

// Error returns the one-line form "file:line:col: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.location())
	b.WriteString(": ")
	if e.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(e.Message)
	return b.String()
}

func (e *Error) location() string {
	switch {
	case e.Line <= 0:
		return e.File
	case e.Column <= 0:
		return fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
}

// Render writes the error the way a person reads it: the one-line form, the
// source line, a caret under the column, and the hint when there is one.
func (e *Error) Render(w io.Writer) error {
	var b strings.Builder
	b.WriteString(e.Error())
	b.WriteByte('\n')
	if e.Source != "" && e.Line > 0 {
		b.WriteString("    ")
		b.WriteString(e.Source)
		b.WriteByte('\n')
		b.WriteString("    ")
		b.WriteString(caretPad(e.Source, e.Column))
		b.WriteString("^\n")
	}
	if e.Hint != "" {
		b.WriteString("    hint: ")
		b.WriteString(e.Hint)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// caretPad returns the blanks that put a caret under the 1-based column col
// of line. Tabs are kept as tabs so the caret lines up in any terminal.
func caretPad(line string, col int) string {
	var b strings.Builder
	i := 1
	for _, r := range line {
		if i >= col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		i++
	}
	for ; i < col; i++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// Errors is every finding of a load, errors and warnings, in file and
// position order.
type Errors []*Error

// Error joins the one-line forms, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// HasErrors reports whether any finding is an error (not only warnings).
func (es Errors) HasErrors() bool {
	for _, e := range es {
		if e.Severity != SeverityWarning {
			return true
		}
	}
	return false
}

// Count returns the number of errors and of warnings.
func (es Errors) Count() (errs, warnings int) {
	for _, e := range es {
		if e.Severity == SeverityWarning {
			warnings++
		} else {
			errs++
		}
	}
	return errs, warnings
}

// Strict returns the findings with every warning made an error, for CI
// runs that must fail on anything doubtful (engine check --strict). The
// findings themselves are not changed.
func (es Errors) Strict() Errors {
	out := make(Errors, len(es))
	for i, e := range es {
		c := *e
		c.Severity = SeverityError
		out[i] = &c
	}
	return out
}

// Render writes every finding with Error.Render, separated by blank lines.
func (es Errors) Render(w io.Writer) error {
	for i, e := range es {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := e.Render(w); err != nil {
			return err
		}
	}
	return nil
}

// JSON returns the findings as a JSON array (never null), for editors and CI.
func (es Errors) JSON() ([]byte, error) {
	if es == nil {
		es = Errors{}
	}
	return json.MarshalIndent(es, "", "  ")
}

// SortErrors orders findings by file, line and column; findings at the same
// place keep the order they were found in.
func SortErrors(es Errors) {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}
