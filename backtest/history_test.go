package backtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/sim"
)

// The small replay: TSLAUSDT on Tuesday 2026-09-15, flat at 400.00 but for
// one candle at 14:30 UTC (10:30 New York) that dips to 380, a gap from
// 15:00 to 15:30 after which the price is 405, mark candles at 401 and
// index candles at 400.50, and funding settled at 08:00 and 16:00 UTC.
var (
	replayDay      = time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC)
	replayDip      = replayDay.Add(14*time.Hour + 30*time.Minute)
	replayGap      = data.Span{From: replayDay.Add(15 * time.Hour), To: replayDay.Add(15*time.Hour + 30*time.Minute)}
	replayFrom     = replayDay.Add(13*time.Hour + 30*time.Minute)
	replayTo       = replayDay.Add(17 * time.Hour)
	replayFunding  = replayDay.Add(16 * time.Hour)
	replayStored   = data.Span{From: replayDay.AddDate(0, 0, -1), To: replayDay.AddDate(0, 0, 1)}
	replayRuleText = `rules:
  - name: buy-the-dip
    when: stock("TSLA").bid < 390 && position("TSLAUSDT", "long").size == 0
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: market, size: 1}
`
)

// replayStore writes the small replay's store and rule directory.
func replayStore(t *testing.T) (store, rules string) {
	t.Helper()
	s := newTestStore(t)
	trade := candleSpec{from: replayStored.From, to: replayStored.To, price: "400.00", skip: []data.Span{replayGap},
		bar: func(at time.Time) (o, h, l, c string, ok bool) {
			switch {
			case at.Equal(replayDip):
				return "400.00", "400.00", "380.00", "399.00", true
			case !at.Before(replayGap.To):
				return "405.00", "405.00", "405.00", "405.00", true
			}
			return "", "", "", "", false
		}}
	s.series("TSLAUSDT", data.KindTrade, trade.candles(), replayStored, []data.Span{replayGap})
	s.series("TSLAUSDT", data.KindMark, candleSpec{from: replayStored.From, to: replayStored.To, price: "401.00"}.candles(), replayStored, nil)
	s.series("TSLAUSDT", data.KindIndex, candleSpec{from: replayStored.From, to: replayStored.To, price: "400.50"}.candles(), replayStored, nil)
	s.funding("TSLAUSDT", []time.Time{replayDay.Add(8 * time.Hour), replayFunding, replayDay.AddDate(0, 0, 1)}, []string{"0.0001", "0.0002", "0.0003"})
	rules = t.TempDir()
	if err := os.WriteFile(filepath.Join(rules, "dip.yaml"), []byte(replayRuleText), 0o644); err != nil {
		t.Fatal(err)
	}
	return s.dir, rules
}

// runReplay runs the small replay on the store.
func runReplay(t *testing.T, store, rules string) *Report {
	t.Helper()
	h, err := LoadHistory(HistoryOptions{Dir: store, Symbols: []string{"TSLAUSDT"}, From: replayFrom, To: replayTo})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{RuleDirs: []string{rules}, SampleEvery: 10 * time.Minute}
	if err := h.Apply(&opts); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestReplayGolden(t *testing.T) {
	t.Parallel()
	store, rules := replayStore(t)
	rep := runReplay(t, store, rules)
	got, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	// The store's folder is a temporary one: the golden names it DATA.
	got = bytes.ReplaceAll(got, []byte(store), []byte("DATA"))
	path := filepath.Join("testdata", "report-replay.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./backtest -run TestReplayGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s (go test ./backtest -run TestReplayGolden -update, then review the diff):\n%s", path, firstDiff(got, want))
	}

	t.Run("fires in the dip candle and nowhere else", func(t *testing.T) {
		if len(rep.Firings) != 1 {
			t.Fatalf("%d firings, want 1: %+v", len(rep.Firings), rep.Firings)
		}
		at, err := time.Parse(time.RFC3339Nano, rep.Firings[0].Time)
		if err != nil {
			t.Fatal(err)
		}
		// The open is the high, so the path holds 400 to the high a third
		// of the way in, then falls a tick at a time to the low at two
		// thirds: it passes 390 half way, at 14:30:30.
		if want := replayDip.Add(30 * time.Second); !at.Equal(want) {
			t.Errorf("fired at %s, want %s", at.Format(time.RFC3339), want.Format(time.RFC3339))
		}
		if len(rep.Fills) != 1 {
			t.Errorf("%d fills, want 1", len(rep.Fills))
		}
	})
	t.Run("the gap holds the price and is reported", func(t *testing.T) {
		want := "gap in TSLAUSDT: no candles from 2026-09-15T15:00:00Z to 2026-09-15T15:30:00Z (30m0s): the price held at the last close"
		if !slices.Contains(rep.Notes, want) {
			t.Errorf("notes %q lack %q", rep.Notes, want)
		}
		prices := priceSamples(t, rep, "TSLAUSDT")
		for at, p := range map[time.Time]string{
			// Held at the last close (400), not drawn towards 405.
			replayGap.From.Add(10 * time.Minute): "400",
			replayGap.To.Add(10 * time.Minute):   "405",
			replayFrom:                           "400",
		} {
			if got, ok := prices[at]; !ok || got != p {
				t.Errorf("price at %s: %q (sampled %v), want %s", at.Format(time.RFC3339), got, ok, p)
			}
		}
	})
	t.Run("funding charged at the stored time and rate, on the mark price", func(t *testing.T) {
		// One TSLA long at 16:00 at the mark price 401 and the rate
		// 0.0002 pays 0.0802 USDT; the 08:00 settlement was before the
		// position, the next one after the run.
		acct := usdtAccount(t, rep)
		if acct.Metrics.FundingPaid != "0.0802" {
			t.Errorf("funding paid %s, want 0.0802", acct.Metrics.FundingPaid)
		}
	})
	t.Run("the report says what is modelled", func(t *testing.T) {
		text := strings.Join(rep.Notes, "\n")
		for _, want := range []string{"modelled", "TSLAUSDT: funding charged at the stored settlements in the span, at their times and rates, on the mark price: 1", "not replayed, their price held flat"} {
			if !strings.Contains(text, want) {
				t.Errorf("notes lack %q:\n%s", want, text)
			}
		}
	})
}

// priceSamples are the report's sampled prices of symbol by time.
func priceSamples(t *testing.T, rep *Report, symbol string) map[time.Time]string {
	t.Helper()
	i := slices.IndexFunc(rep.Prices, func(p PriceSeries) bool { return p.Symbol == symbol })
	if i < 0 {
		t.Fatalf("no price series of %s", symbol)
	}
	out := map[time.Time]string{}
	for j, e := range rep.Equity {
		at, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil {
			t.Fatal(err)
		}
		out[at] = rep.Prices[i].Prices[j]
	}
	return out
}

// usdtAccount is the report's USDT-FUTURES account summary.
func usdtAccount(t *testing.T, rep *Report) AccountSummary {
	t.Helper()
	for _, a := range rep.Summary.Accounts {
		if a.ProductType == "USDT-FUTURES" {
			return a
		}
	}
	t.Fatal("no USDT-FUTURES account in the report")
	return AccountSummary{}
}

func TestReplayDeterministic(t *testing.T) {
	t.Parallel()
	store, rules := replayStore(t)
	var reports [2][]byte
	for i := range reports {
		b, err := runReplay(t, store, rules).JSON()
		if err != nil {
			t.Fatal(err)
		}
		reports[i] = b
	}
	if !bytes.Equal(reports[0], reports[1]) {
		t.Errorf("two runs differ:\n%s", firstDiff(reports[0], reports[1]))
	}
}

func TestReplayMissing(t *testing.T) {
	t.Parallel()
	store, _ := replayStore(t)
	for _, tc := range []struct {
		name     string
		symbols  []string
		from, to time.Time
		want     []string
	}{
		{"a span before the store", []string{"TSLAUSDT"}, replayStored.From.AddDate(0, 0, -3), replayStored.From.Add(time.Hour),
			[]string{"TSLAUSDT trade 1m (USDT-FUTURES) from 2026-09-14T00:00:00Z to 2026-09-16T00:00:00Z only", "needs 2026-09-11T00:00:00Z",
				"engine data download --dir " + store + " --product USDT-FUTURES --symbols TSLAUSDT --interval 1m --from 2026-09-11T00:00:00Z --to 2026-09-14T01:00:00Z"}},
		{"a span after the store", []string{"TSLAUSDT"}, replayStored.To.Add(-time.Hour), replayStored.To.Add(time.Hour),
			[]string{"only", "engine data download"}},
		{"a symbol not downloaded", []string{"NVDAUSDT"}, replayFrom, replayTo,
			[]string{"NVDAUSDT trade 1m (USDT-FUTURES): not downloaded", "--symbols NVDAUSDT"}},
		{"a symbol the demo has no contract for", []string{"DOGEUSDT"}, replayFrom, replayTo,
			[]string{"DOGEUSDT: the demo scenario has no such contract"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadHistory(HistoryOptions{Dir: store, Symbols: tc.symbols, From: tc.from, To: tc.to})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestReplayFundingRateInTheTicker: a rule that reads the ticker's funding
// rate in a replay sees the stored rate of the last settlement: 0.0001
// (08:00, before the replay's 13:30 start) from the first second, then
// 0.0002 from 16:00:00 exactly.
func TestReplayFundingRateInTheTicker(t *testing.T) {
	t.Parallel()
	store, _ := replayStore(t)
	rules := t.TempDir()
	src := `rules:
  - name: funding-up
    when: ticker("TSLAUSDT").funding_rate > 0.00015
    once: per_day
    actions:
      - log: { message: "funding {{ ticker(\"TSLAUSDT\").funding_rate }}" }
  - name: funding-at-start
    when: ticker("TSLAUSDT").funding_rate == 0.0001
    once: per_day
    actions:
      - log: { message: "funding 0.0001" }
`
	if err := os.WriteFile(filepath.Join(rules, "funding.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := runReplay(t, store, rules)
	want := map[string]time.Time{"funding-at-start": replayFrom, "funding-up": replayFunding}
	if len(rep.Firings) != len(want) {
		t.Fatalf("%d firings, want %d: %+v", len(rep.Firings), len(want), rep.Firings)
	}
	for _, f := range rep.Firings {
		if at, err := time.Parse(time.RFC3339Nano, f.Time); err != nil || !at.Equal(want[f.Rule]) {
			t.Errorf("%s fired at %s (%v), want %s", f.Rule, f.Time, err, want[f.Rule].Format(time.RFC3339))
		}
	}
}

// TestReplayBadFundingFile: a funding file that does not read stops the
// replay with the file's error; it is not taken for "no funding".
func TestReplayBadFundingFile(t *testing.T) {
	t.Parallel()
	store, _ := replayStore(t)
	path := filepath.Join(store, "USDT-FUTURES", "TSLAUSDT", "funding.csv")
	if err := os.WriteFile(path, []byte("time,rate\nnot a time,0.0001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadHistory(HistoryOptions{Dir: store, Symbols: []string{"TSLAUSDT"}, From: replayFrom, To: replayTo})
	if err == nil || !strings.Contains(err.Error(), "funding.csv") {
		t.Fatalf("error %v, want the funding file's", err)
	}
}

// TestScenarioCandlesPath runs a scenario whose price path is written as
// candles (docs/scenarios.md's candles.yaml): the 14:30 candle (open 400,
// high 400, low 380, close 399) falls from 400 at 14:30:20 to 380 at
// 14:30:40 a dollar a second, so last <= 390 first holds at 14:30:30.
func TestScenarioCandlesPath(t *testing.T) {
	t.Parallel()
	scenario := `name: a dip inside one candle
clock: {start: 2026-09-15T14:29:00Z, end: 2026-09-15T14:40:00Z}
contracts:
  - {product_type: USDT-FUTURES, symbol: TSLAUSDT, base_coin: TSLA, quote_coin: USDT, is_rwa: "YES"}
accounts:
  - {uid: "1", api_key: demo-key, balances: {USDT: "10000"}}
prices:
  TSLAUSDT:
    candles:
      interval: 1m
      rows:
        - {at: 2026-09-15T14:29:00Z, open: "400", high: "400", low: "400", close: "400"}
        - {at: 2026-09-15T14:30:00Z, open: "400", high: "400", low: "380", close: "399"}
        - {at: 2026-09-15T14:31:00Z, open: "399", high: "401", low: "399", close: "401"}
`
	dir := t.TempDir()
	rules := "rules:\n  - name: dip\n    when: ticker(\"TSLAUSDT\").last <= 390\n    once: per_day\n    actions:\n      - log: {message: dip}\n"
	if err := os.WriteFile(filepath.Join(dir, "dip.yaml"), []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := sim.ParseScenario([]byte(scenario), "candles.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Scenario: sc, RuleDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Firings) != 1 || rep.Firings[0].Time != "2026-09-15T14:30:30Z" {
		t.Fatalf("firings %+v, want one at 14:30:30", rep.Firings)
	}
}
