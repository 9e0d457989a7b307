package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/marketdata"
)

// TestReadsClockLimits: a program that reads the clock only by comparing
// clock values with constant numbers (and weekday) lists the comparisons
// in ClockLimits and is not ClockOther; any other reading of the clock
// (now, an age, a clock value in arithmetic, a computed time) sets
// ClockOther, which has the engine evaluate it every tick.
func TestReadsClockLimits(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	tests := []struct {
		src    string
		limits string // ClockLimits, as clockLimitsString writes them
		other  bool
	}{
		{`market.session == "regular"`, "", false},
		{`market.session == "regular" && market.minutes_since_open < 15`, "since_open 15", false},
		{`15 > market.minutes_since_open`, "since_open 15", false},
		{`market.minutes_to_close <= 5`, "to_close 5", false},
		{`market.minutes_to_close <= 0.5 || market.minutes_to_close > 300`, "to_close 0.5; to_close 300", false},
		{`market.minutes_to_next_session < -1`, "to_next -1", false},
		{`market["minutes_to_close"] <= 5`, "to_close 5", false},
		{`minutes_until("15:55") <= 5`, "until 15:55 5", false},
		{`minutes_since("09:30") < 15 && minutes_since("09:30") < 15`, "since 09:30 15", false},
		{`weekday == "Friday"`, "weekday", false},
		{`weekday in ["Saturday", "Sunday"] && market.minutes_since_open > 1`, "since_open 1; weekday", false},
		// The clock read otherwise.
		{`market.minutes_to_close + 1 <= 5`, "", true},
		{`market.minutes_to_close <= market.minutes_since_open`, "", true},
		{`market.minutes_to_close <= 5 * 2`, "", true},
		{`let m = market.minutes_to_close; m <= 5`, "", true},
		{`market.minutes_to_close <= 5 && now.Hour() > 9`, "to_close 5", true},
		{`now_ms > 0`, "", true},
		{`minutes_until("15:55") - 5 < 1`, "", true},
		{`minutes_until("15:" + "55") < 1`, "", true},
		{`any(orders("TSLAUSDT"), .age_seconds > 600)`, "", true},
		{`stock("TSLA").tradable_now && market.minutes_since_open < 15`, "since_open 15", true},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p, errs := c.Condition(tt.src)
			if len(errs) > 0 {
				t.Fatal(errs[0])
			}
			r := p.Reads
			if got := clockLimitsString(r.ClockLimits); got != tt.limits || r.ClockOther != tt.other {
				t.Errorf("ClockLimits %q, ClockOther %v; want %q, %v", got, r.ClockOther, tt.limits, tt.other)
			}
			// Every program that reads the clock says so, whichever way.
			if (r.ClockOther || len(r.ClockLimits) > 0) != r.Clock || (r.Clock && !r.Time) {
				t.Errorf("Clock %v, Time %v with ClockLimits %q, ClockOther %v", r.Clock, r.Time, clockLimitsString(r.ClockLimits), r.ClockOther)
			}
		})
	}
}

// TestReadsClockLimitsMerge: a rule's reads keep the limits of its
// condition and formulas, once each, and any ClockOther.
func TestReadsClockLimitsMerge(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	a, _ := c.Condition(`market.minutes_to_close <= 5 && weekday == "Friday"`)
	b, _ := c.Condition(`market.minutes_to_close <= 5 && market.minutes_since_open > 1`)
	o, _ := c.Condition(`now_ms > 0`)
	if got := clockLimitsString(a.Reads.Merge(b.Reads).ClockLimits); got != "since_open 1; to_close 5; weekday" {
		t.Errorf("merged limits %q", got)
	}
	if m := a.Reads.Merge(b.Reads); m.ClockOther {
		t.Error("merged reads read the clock otherwise")
	}
	if m := a.Reads.Merge(o.Reads); !m.ClockOther {
		t.Error("merged reads lost ClockOther")
	}
	if got := clockLimitsString(a.Reads.WithSymbol("TSLAUSDT", testCatalog()).ClockLimits); got != "to_close 5; weekday" {
		t.Errorf("a for_each instance's limits %q", got)
	}
}

// clockLimitsString writes limits as "to_close 5; until 15:55 5".
func clockLimitsString(ls []marketdata.ClockLimit) string {
	names := map[marketdata.ClockValue]string{
		marketdata.ClockMinutesSinceOpen: "since_open", marketdata.ClockMinutesToClose: "to_close",
		marketdata.ClockMinutesToNextSession: "to_next", marketdata.ClockMinutesUntil: "until",
		marketdata.ClockMinutesSince: "since", marketdata.ClockWeekday: "weekday",
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		s := names[l.Value]
		if l.At != "" {
			s += " " + l.At
		}
		if l.Value != marketdata.ClockWeekday {
			s += " " + fmt.Sprint(l.Limit)
		}
		out[i] = s
	}
	return strings.Join(out, "; ")
}
