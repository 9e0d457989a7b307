package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// positionSource serves a TSLAUSDT long whose mark price follows marks, one
// per tick from t0; opened is the venue's opening time of the position, and
// flat ticks serve no position at all.
type positionSource struct {
	marks  []float64
	opened map[int]time.Time // from this tick on, this opening time
	flat   map[int]bool
}

func (s *positionSource) State(now time.Time) (*marketdata.State, error) {
	i := min(int(now.Sub(t0)/time.Second), len(s.marks)-1)
	var opened time.Time
	for from, t := range s.opened {
		if i >= from && (opened.IsZero() || t.After(opened)) {
			opened = t
		}
	}
	var list []exchange.Position
	if !s.flat[i] {
		mark := num(s.marks[i])
		list = append(list, exchange.Position{Symbol: "TSLAUSDT", MarginCoin: "USDT", HoldSide: "long", Total: "1", Available: "1",
			OpenPriceAvg: "250", MarkPrice: mark, UnrealizedPL: num(s.marks[i] - 250), MarginSize: "25", Leverage: "10",
			MarginMode: exchange.Crossed, PosMode: exchange.OneWayMode, CTime: exchange.MillisOf(opened)})
	}
	return marketdata.NewState(marketdata.BuildInput{Now: now,
		Contracts: []marketdata.ProductContract{{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures}},
		Positions: []marketdata.PositionsInput{{ProductType: exchange.USDTFutures, Positions: list, At: now}}}, marketdata.BuildOptions{})
}
func num(x float64) exchange.Num { return exchange.Num(strconv.FormatFloat(x, 'f', -1, 64)) }

func (s *positionSource) FullyPolled() bool { return true }
func (s *positionSource) Stale(*marketdata.State, marketdata.PartSet) (marketdata.Part, bool) {
	return 0, false
}

const trailingStop = `
rules:
  - name: trailing-stop
    when: >
      position("TSLAUSDT", "long").is_open
      && position("TSLAUSDT", "long").mark_price < position("TSLAUSDT", "long").high_since_open * 0.98
    actions:
      - log: { message: "2% under the high since entry" }
`

// TestExtremesSinceEntry: the high since entry follows the mark price and a
// trailing stop fires on the retrace from it; a restart keeps the high; a
// position opened again starts from its own price.
func TestExtremesSinceEntry(t *testing.T) {
	rs, errs := rules.LoadBytes(context.Background(), "trail.yaml", []byte(trailingStop), rules.LoadOptions{Actions: actions.Defs()})
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	store, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opened := t0.Add(-time.Hour)
	// Up from 250 to 260, then down: 2% under 260 is 254.8.
	src := &positionSource{marks: []float64{250, 255, 260, 258, 256, 255, 254, 253}, opened: map[int]time.Time{0: opened}}
	rec := &recorder{}
	e, err := New(Options{Rules: rs, Source: src, Executor: rec, Clock: atClock{t0}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	firedAt := -1
	for s := 0; s < 5; s++ {
		e.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
		if len(rec.firings) > 0 && firedAt < 0 {
			firedAt = s
		}
	}
	if firedAt >= 0 {
		t.Fatalf("fired at tick %d, before the price fell 2%% under its high", firedAt)
	}
	st, _ := src.State(t0.Add(4 * time.Second))
	e.extremes.observe(st)
	p, _ := st.Position("TSLAUSDT", "long", marketdata.NeedOpen)
	if p.HighSinceOpen != 260 || p.LowSinceOpen != 250 || p.PeakPnL != 10 {
		t.Errorf("high %v, low %v, peak P&L %v; want 260, 250, 10", p.HighSinceOpen, p.LowSinceOpen, p.PeakPnL)
	}

	// A restart at tick 5 keeps the high of 260 (the price is now 255, and
	// a fresh start would take that as the high).
	rec2 := &recorder{}
	e2, err := New(Options{Rules: rs, Source: src, Executor: rec2, Clock: atClock{t0.Add(5 * time.Second)}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	for s := 5; s < 8; s++ {
		e2.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
		if len(rec2.firings) > 0 && firedAt < 0 {
			firedAt = s
		}
	}
	if firedAt != 6 {
		t.Errorf("trailing stop fired at tick %d, want 6 (254 < 254.8)", firedAt)
	}

	// Closed, then opened again at 240: its high starts at 240.
	src2 := &positionSource{marks: []float64{250, 240, 240}, opened: map[int]time.Time{0: opened, 2: t0.Add(2 * time.Second)}, flat: map[int]bool{1: true}}
	e3, err := New(Options{Rules: rs, Source: src2, Executor: &recorder{}, Clock: atClock{t0.Add(10 * time.Second)}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 3; s++ {
		e3.Step(context.Background(), t0.Add(time.Duration(s)*time.Second))
	}
	if len(e3.extremes.byKey) != 1 {
		t.Fatalf("remembers %d positions, want the one open: %v", len(e3.extremes.byKey), e3.extremes.byKey)
	}
	for _, x := range e3.extremes.byKey {
		if x.High != 240 || x.Low != 240 {
			t.Errorf("reopened position: %+v, want high and low 240", x)
		}
	}
}

func TestDecodeExtremes(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"ok", `{"version":1,"positions":{"USDT-FUTURES|TSLAUSDT|long|1":{"high":260,"low":250,"peak_pnl":10}}}`, ""},
		{"none", `{"version":1,"positions":{}}`, ""},
		{"low above high", `{"version":1,"positions":{"k":{"high":250,"low":260,"peak_pnl":0}}}`, "above high"},
		{"version", `{"version":2,"positions":{}}`, "not a version 1"},
		{"null", `{"version":1,"positions":null}`, "missing or null"},
		{"unknown field", `{"version":1,"positions":{},"x":1}`, "unknown field"},
		{"not json", `{`, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeExtremes([]byte(tt.file))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrBadStateFile) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want ErrBadStateFile with %q", err, tt.want)
			}
		})
	}
}

// FuzzDecodeExtremes: no input panics, and what decodes saves and decodes
// to the same.
func FuzzDecodeExtremes(f *testing.F) {
	f.Add([]byte(`{"version":1,"positions":{"USDT-FUTURES|TSLAUSDT|long|1":{"high":260,"low":250,"peak_pnl":10}}}`))
	f.Add([]byte(`{"version":1,"positions":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeExtremes(b)
		if err != nil {
			return
		}
		s, err := NewStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveExtremes(m); err != nil {
			t.Fatal(err)
		}
		again, err := s.LoadExtremes()
		if err != nil || len(again) != len(m) {
			t.Fatalf("saved %v, read back %v, %v", m, again, err)
		}
	})
}
