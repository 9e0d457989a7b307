package assemble

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
)

// buyRule buys BTCUSDT (USDT-FUTURES), again every 5 s while no long is
// held.
const buyRule = `
rules:
  - name: buy-btcusdt
    when: position("BTCUSDT", "long").size == 0
    cooldown: 5s
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
`

// modeRules are buyRule and a rule that buys BTCPERP (USDC-FUTURES).
const modeRules = buyRule + `  - name: buy-btcperp
    when: position("BTCPERP", "long").size == 0
    actions:
      - place_order: {symbol: BTCPERP, open: long, type: market, size: 0.01, product_type: USDC-FUTURES, margin_coin: USDC}
`

// TestPositionModeFailingHoldsOnlyItsProductType starts the engine against
// engine sim whose single-account read (the position mode) fails for
// USDT-FUTURES only: the engine starts, warns once naming the product type
// and the cause, refuses the BTCUSDT order with that reason, trades
// BTCPERP, and sends BTCUSDT orders once the mode is read again.
func TestPositionModeFailingHoldsOnlyItsProductType(t *testing.T) {
	f := newFailingVenueOn(t, func(r *http.Request) bool {
		info, ok := exchange.OpForPath(r.Method, r.URL.Path)
		return ok && info.Op == exchange.OpSingleAccount && r.URL.Query().Get("productType") == string(exchange.USDTFutures)
	}, http.StatusInternalServerError, `{"code":"45001","msg":"system error","requestTime":0,"data":null}`)
	core, logs := observer.New(zapcore.InfoLevel)
	ctx := context.Background()
	var legs []string
	a := f.assemble(t, modeRules, zap.New(core), engine.Options{OnFiring: func(fr *engine.Firing) {
		for _, l := range fr.Legs {
			legs = append(legs, fr.Rule.Name+" "+string(l.Outcome)+" "+l.Error)
		}
	}})
	if _, ok := a.Modes[exchange.USDTFutures]; ok || a.Modes[exchange.USDCFutures] != exchange.OneWayMode {
		t.Errorf("modes %v, want USDC-FUTURES only", a.Modes)
	}
	warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
	if len(warns) != 1 || warns[0].ContextMap()["product_type"] != "USDT-FUTURES" || !strings.Contains(warns[0].ContextMap()["error"].(string), "45001") {
		t.Fatalf("warnings %+v, want one naming USDT-FUTURES and 45001", warns)
	}
	for range 2 {
		f.step(t, a)
	}
	got := strings.Join(legs, "\n")
	if !strings.Contains(got, "buy-btcperp ok") {
		t.Errorf("BTCPERP not traded:\n%s", got)
	}
	if !strings.Contains(got, "buy-btcusdt") || !strings.Contains(got, "position mode of USDT-FUTURES could not be read") || strings.Contains(got, "buy-btcusdt ok") {
		t.Errorf("BTCUSDT not refused with the reason:\n%s", got)
	}

	a.modes.readAll(ctx)
	if _, err := a.modes.mode(exchange.USDTFutures); err == nil {
		t.Fatal("the mode counts as read while the venue still fails")
	}
	f.broken.Store(false)
	a.modes.readAll(ctx)
	if m, err := a.modes.mode(exchange.USDTFutures); m != exchange.OneWayMode || err != nil {
		t.Fatalf("mode after the retry: %q, %v", m, err)
	}
	legs = nil
	for i := 0; i < 10 && !strings.Contains(strings.Join(legs, "\n"), "buy-btcusdt ok"); i++ {
		f.step(t, a)
	}
	if got := strings.Join(legs, "\n"); !strings.Contains(got, "buy-btcusdt ok") {
		t.Errorf("BTCUSDT not traded once its mode is read:\n%s", got)
	}
}

// TestLateModeUnknownProductType shows a product type that neither was read
// nor failed stays refused, not guessed.
func TestLateModeUnknownProductType(t *testing.T) {
	l := newModeBook(nil, &exchange.ModeError{Failed: map[exchange.ProductType]error{exchange.COINFutures: errors.New("down")}}, nil, nil, zap.NewNop())
	tests := []struct {
		pt   exchange.ProductType
		want string
	}{
		{exchange.COINFutures, "could not be read (down)"},
		{exchange.USDCFutures, "not known"},
	}
	for _, tt := range tests {
		t.Run(string(tt.pt), func(t *testing.T) {
			m, err := l.mode(tt.pt)
			if m != "" || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("mode %q, %v; want a refusal with %q", m, err, tt.want)
			}
		})
	}
}
