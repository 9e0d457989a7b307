package status

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickrules/tickrules/engine"
)

//go:embed page.html
var pageHTML string

// page is parsed once; templates are safe for concurrent use.
var page = template.Must(template.New("status").Funcs(template.FuncMap{
	"ny":         func(t time.Time) string { return clockNY(t) },
	"utc":        func(t time.Time) string { return clockUTC(t) },
	"values":     valuesText,
	"num":        number,
	"price":      optionalPrice,
	"phase":      phaseText,
	"phaseClass": phaseClass,
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
	switch x := v.(type) {
	case float64:
		return number(x)
	case float32:
		return number(float64(x))
	case nil, string, bool, int, int64, int32, uint, uint64, uint32:
		return fmt.Sprint(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// shownDigits is how many significant digits the page and engine status
// show of a number a condition read or the venue gave as a float: enough
// for any price or size (89925.95, 0.0012345), while a float artefact
// (0.30000000000000004, 0.010923201266666667) reads as a person writes it.
const shownDigits = 8

// number writes f for a person: shownDigits significant digits, never an
// exponent, no trailing zeros.
func number(f float64) string {
	a := math.Abs(f)
	if a == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	decimals := max(shownDigits-int(math.Floor(math.Log10(a)))-1, 0)
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// optionalPrice writes a price that may be absent, as a strategy order's
// trigger, take-profit and stop-loss: the venue sends none as 0, which is
// never a price, so it reads "none".
func optionalPrice(f float64) string {
	if f == 0 {
		return "none"
	}
	return number(f)
}

// phaseText is a rule's phase as the page and engine status show it. The
// engine keeps a rule in its firing phase through a cooldown; to a person
// watching, that rule is cooling down, not firing.
func phaseText(r Rule) string { return shownPhase(r.Phase, r.Reason) }

// shownPhase is phaseText of a phase and the reason the engine gave for it
// (a rule's, or one evaluation's in engine why).
func shownPhase(phase engine.Phase, reason engine.Reason) string {
	if reason == engine.ReasonCooldown {
		return "cooling down"
	}
	return string(phase)
}

// phaseClass is the page's style of a rule's phase badge (page.html).
func phaseClass(r Rule) string {
	if r.Reason == engine.ReasonCooldown {
		return "cooldown"
	}
	return string(r.Phase)
}
