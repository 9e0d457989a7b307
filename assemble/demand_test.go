package assemble

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// TestDemandOfClosedTrades: a rule reading the position history makes the
// pollers fetch it for the product types it needs: the named contract's,
// or every product type when it reads closed_trades or a coin's day.
func TestDemandOfClosedTrades(t *testing.T) {
	cat := rules.NewCatalog([]marketdata.ProductContract{
		{ProductType: exchange.USDTFutures, Contract: exchange.Contract{Symbol: "TSLAUSDT"}},
		{ProductType: exchange.COINFutures, Contract: exchange.Contract{Symbol: "BTCUSD"}},
	}, nil)
	for _, tc := range []struct {
		when string
		want []exchange.ProductType
	}{
		{`losses_today("TSLAUSDT") >= 2`, []exchange.ProductType{exchange.USDTFutures}},
		{`pnl_today("COIN-FUTURES") < -0.1`, []exchange.ProductType{exchange.COINFutures}},
		{`none(closed_trades, .pnl < 0)`, exchange.ProductTypes()},
		{`equity_day_start("USDT") > 0`, exchange.ProductTypes()},
	} {
		t.Run(tc.when, func(t *testing.T) {
			dir := t.TempDir()
			file := "rules:\n  - name: r\n    when: '" + tc.when + "'\n    actions: [{log: {message: x}}]\n"
			if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			rs, errs := rules.Load(context.Background(), []string{dir}, rules.LoadOptions{Actions: actions.Defs(), Catalog: cat})
			if rs == nil || len(errs) > 0 {
				t.Fatalf("load: %v", errs)
			}
			d := Demand(rs, cat)
			if !d.Parts.Has(marketdata.PartClosedTrades) {
				t.Errorf("parts %s lack the closed trades", d.Parts)
			}
			got := slices.Clone(d.ProductTypes)
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("product types %v, want %v", got, want)
			}
		})
	}
}
