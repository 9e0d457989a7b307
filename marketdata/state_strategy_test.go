package marketdata

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// A stop-loss that was cancelled, executed or failed protects nothing: a
// rule that restores missing stop-losses must see it as missing.
func TestHasStrategyStopIgnoresFinishedOrders(t *testing.T) {
	now := time.Date(2026, 3, 9, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		status exchange.StrategyStatus
		want   bool
	}{
		{exchange.StrategyPending, true},
		{exchange.StrategySubmitting, true},
		{"", true},
		{exchange.StrategyCancelled, false},
		{exchange.StrategySuccess, false},
		{exchange.StrategyFailed, false},
	} {
		t.Run(string(tt.status), func(t *testing.T) {
			st, err := NewState(BuildInput{Now: now, StrategyOrders: []StrategyOrdersInput{{
				Category: exchange.CategoryUSDTFutures, At: now,
				Orders: []exchange.StrategyOrder{{OrderID: "1", Category: exchange.USDTFutures, Symbol: "TSLAUSDT", Qty: "1", PosSide: exchange.Long, Status: tt.status, StopLoss: "240"}},
			}}}, BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.HasStrategyStop("TSLAUSDT", "long", true)
			if err != nil || got != tt.want {
				t.Errorf("HasStrategyStop = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
