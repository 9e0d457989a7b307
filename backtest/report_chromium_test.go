package backtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// yearReport is a report of a year (December 2026 to December 2027) with a
// sample every 6 hours and 660 filled orders of one symbol, each placed by
// a firing: the size of the one-year report of issue 26 whose markers'
// texts covered each other and whose axis read out of order.
func yearReport() *Report {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	const samples, fills = 4 * 365, 660
	r := &Report{Source: "year", From: stamp(start), To: stamp(start.Add(365 * 24 * time.Hour)), Step: "1s",
		Summary: Summary{Orders: fills, Fills: fills, Accounts: []AccountSummary{{ProductType: "USDT-FUTURES", MarginCoin: "USDT",
			EquityStart: "100000", EquityEnd: "101000", Fills: fills}}}}
	prices := make([]string, samples)
	for i := range samples {
		at := start.Add(time.Duration(i) * 6 * time.Hour)
		r.Equity = append(r.Equity, EquityPoint{Time: stamp(at), Accounts: []string{strconv.Itoa(100000 + i)}})
		prices[i] = strconv.FormatFloat(400+50*math.Sin(float64(i)/40), 'f', 2, 64)
	}
	r.Prices = []PriceSeries{{Symbol: "TSLAUSDT", Prices: prices}}
	for i := range fills {
		at := start.Add(time.Duration(i) * 365 * 24 * time.Hour / fills)
		id, side := strconv.Itoa(1000+i), []string{"buy", "sell"}[i%2]
		r.Firings = append(r.Firings, Firing{Time: stamp(at), Rule: fmt.Sprintf("rule-%d", i%5),
			Actions: []Action{{Kind: "place_order", Request: json.RawMessage(`{"symbol":"TSLAUSDT"}`), Outcome: "ok", OrderIDs: []string{id}}}})
		r.Fills = append(r.Fills, Fill{Time: stamp(at), TradeID: id, OrderID: id, ProductType: "USDT-FUTURES", Symbol: "TSLAUSDT",
			Side: side, Price: "400", Size: "1", Fee: "-0.1", FeeCoin: "USDT", Profit: "0"})
	}
	return r
}

// axisLabel matches the time-axis labels that name a date: a year, a
// month of a year, or a day (with or without its hour).
var (
	yearLabel  = regexp.MustCompile(`^\d{4}$`)
	monthLabel = regexp.MustCompile(`^[A-Z][a-z]{2} \d{4}$`)
	dayLabel   = regexp.MustCompile(`^([A-Z][a-z]{2} \d{1,2})( \d\d:\d\d)?$`)
)

// labelStart is the start of the period an axis label names, read for a
// mark at t (a day label has no year: t's New York year), or false for a
// label that names a time of day.
func labelStart(text string, t time.Time) (time.Time, string, bool) {
	switch {
	case yearLabel.MatchString(text):
		d, err := time.Parse("2006", text)
		return d, "year", err == nil
	case monthLabel.MatchString(text):
		d, err := time.Parse("Jan 2006", text)
		return d, "month", err == nil
	case dayLabel.MatchString(text):
		ny := t.In(newYork())
		d, err := time.ParseInLocation("Jan 2 2006", dayLabel.FindStringSubmatch(text)[1]+" "+strconv.Itoa(ny.Year()), newYork())
		return d, "day", err == nil
	}
	return time.Time{}, "", false
}

// TestYearChartInChromium opens the report of a year in headless Chromium.
// Its time axis must read in order: sorted by their place on the axis, the
// dates its labels name never go back, and each names the period its mark
// starts (a month label within a day of its mark; it read "Jan 2027" at 1
// February, "2026" at 1 January 2027). Its 660 fill markers must be merged
// so that at most one is drawn per 24 px of the chart, without their
// rules' texts, which covered each other.
func TestYearChartInChromium(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s is missing: install Debian's chromium package (apt-get install -y chromium) to run the browser check", chromiumPath)
	}
	r := yearReport()
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1300,1500", "--virtual-time-budget=5000"}
	st := chromiumStatus(ctx, t, base, "file://"+filepath.Join(dir, HTMLFile))
	if len(st.Errors) > 0 || st.Markers != 660 || st.FillMarkers != 660 {
		t.Fatalf("Chromium drew %+v; want no error and 660 fill markers", st)
	}
	t.Run("markers merged", func(t *testing.T) {
		// The chart is about 1250 px wide: at most about 52 markers of 24 px.
		if st.Drawn == 0 || st.Drawn > 60 || st.Labelled != 0 {
			t.Errorf("drew %d markers, %d with their rule's text; want at most 60, none with text", st.Drawn, st.Labelled)
		}
	})
	type mark struct {
		at    time.Time
		text  string
		start time.Time
		kind  string
	}
	var marks []mark
	for _, tk := range st.Ticks {
		secs, _ := tk[0].(float64)
		text, _ := tk[1].(string)
		at := time.Unix(int64(secs), 0).UTC()
		if start, kind, ok := labelStart(text, at); ok {
			marks = append(marks, mark{at, text, start, kind})
		}
	}
	slices.SortStableFunc(marks, func(a, b mark) int { return a.at.Compare(b.at) })
	kinds := map[string]int{}
	for i, m := range marks {
		kinds[m.kind]++
		t.Run(m.text, func(t *testing.T) {
			if m.start.After(m.at.Add(24*time.Hour)) || m.at.Sub(m.start) > 2*24*time.Hour {
				t.Errorf("label %q at %s names a period starting %s", m.text, m.at, m.start)
			}
			if i > 0 && m.start.Before(marks[i-1].start) {
				t.Errorf("label %q at %s comes after %q at %s: the axis goes back", m.text, m.at, marks[i-1].text, marks[i-1].at)
			}
		})
	}
	if kinds["month"]+kinds["year"] < 6 {
		t.Errorf("the axis shows %d month and %d year labels (%d ticks in all): the year was not drawn as expected", kinds["month"], kinds["year"], len(st.Ticks))
	}
}
