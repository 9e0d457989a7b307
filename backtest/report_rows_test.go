package backtest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHTMLRows checks rows of the page's tables that misled before: a
// modify_order row showed no price (the request says newPrice), a trade
// closed by a stop-loss said "no rule", and a held position had no entry
// label.
func TestHTMLRows(t *testing.T) {
	r := &Report{From: "2026-03-10T14:00:00Z", To: "2026-03-10T15:00:00Z",
		Firings: []Firing{{Time: "2026-03-10T14:01:00Z", Rule: "move-bid", Actions: []Action{{Kind: "modify_order",
			Request: json.RawMessage(`{"symbol":"BTCUSDT","orderId":"7","newClientOid":"x","newPrice":"81234.5","newSize":"0.3"}`), Outcome: "ok", OrderIDs: []string{"7"}}}}},
		Trades: []Trade{{ProductType: "USDT-FUTURES", Symbol: "BTCUSDT", Side: "long", Size: "0.2", EntryTime: "2026-03-10T14:00:00Z", EntryPrice: "82000",
			EntryBy: heldAtStart, ExitTime: "2026-03-10T14:50:00Z", ExitPrice: "80000", ExitBy: "stop-loss", PnL: "-400", Fees: "0.096", NetPnL: "-400.096"}},
	}
	page := string(r.HTML())
	for _, want := range []string{
		"<td>modify_order</td><td>BTCUSDT</td><td></td><td class=num>0.3</td><td class=num>81234.5</td>",
		"<td>held at start</td>",
		"<td>stop-loss</td>",
	} {
		t.Run(want, func(t *testing.T) {
			if !strings.Contains(page, want) {
				t.Errorf("report.html lacks %q", want)
			}
		})
	}
	if strings.Contains(page, "no rule") {
		t.Errorf("report.html says \"no rule\" for a trade whose entry and exit are known")
	}
}
