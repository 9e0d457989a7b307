package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

// TestBudgetCountsBothPendingRequests shows the doctor's budget line
// counts orders-pending at the two requests the client sends per poll
// (one per state): a rule reading the pending orders of one product type
// every second spends 2 of its 10 a second.
func TestBudgetCountsBothPendingRequests(t *testing.T) {
	const rulesYAML = `
rules:
  - name: cancel-stale
    when: any(orders("BTCUSDT"), .age_seconds > 600)
    actions:
      - batch_cancel: {symbol: BTCUSDT, orders: '=map(filter(orders("BTCUSDT"), .age_seconds > 600), .id)'}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(rulesYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	v := &stubVenue{family: exchange.PathsSpec, mode: exchange.OneWayMode, status: exchange.SymbolNormal}
	rep := Run(context.Background(), Options{Venue: v, RuleDirs: []string{dir}})
	var out bytes.Buffer
	_ = rep.Write(&out)
	for _, l := range rep.Lines {
		if l.Topic != "polling budget" {
			continue
		}
		if l.Status != OK || !strings.Contains(l.Detail, "orders-pending 2 of 10 req/s") {
			t.Errorf("budget line %+v, want ok with orders-pending 2 of 10 req/s:\n%s", l, out.String())
		}
		return
	}
	t.Fatalf("no polling budget line:\n%s", out.String())
}
