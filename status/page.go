package status

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"
)

//go:embed page.html
var pageHTML string

// page is parsed once; templates are safe for concurrent use.
var page = template.Must(template.New("status").Funcs(template.FuncMap{
	"ny":     func(t time.Time) string { return clockNY(t) },
	"utc":    func(t time.Time) string { return clockUTC(t) },
	"values": valuesText,
}).Parse(pageHTML))

// WritePage writes the status page of s: plain HTML with its style inline
// and no script, that reloads itself every two seconds, so it works with no
// internet and in any browser.
func WritePage(w io.Writer, s Snapshot) error { return page.Execute(w, s) }

// clockNY is t in New York time, "15:04:05 EDT"; "-" for the zero time.
func clockNY(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(newYork).Format("15:04:05 MST")
}

// clockUTC is t in UTC, "15:04:05Z"; "" for the zero time.
func clockUTC(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("15:04:05Z")
}

// valuesText lists what a condition read, one "term = value" per line,
// sorted by term.
func valuesText(v map[string]any) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s = %s", k, valueText(v[k]))
	}
	return b.String()
}

// valueText is one value a condition read. An object or list a term gives
// whole (orders("TSLAUSDT"), positions) is written as JSON, in the field
// names of the rule language: %v would print Go pointers on the page, and
// Go-syntax maps in engine status, which read the same values back from
// /api/status.
func valueText(v any) string {
	switch v.(type) {
	case nil, string, bool, float64, float32, int, int64, int32, uint, uint64, uint32:
		return fmt.Sprint(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
