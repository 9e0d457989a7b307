package rules

import (
	"fmt"
	"testing"

	"github.com/tickrules/tickrules/marketdata"
)

// TestFieldRowsDriveReads reads every field of every object reached by a
// lookup and checks that what the program reads follows the field's row:
// the parts its requirements name (the poller's demand), whether it moves
// with time and which of the fields of fetched data that move with time it
// reads, and, for a clock value, the instant a comparison with a constant
// can change.
func TestFieldRowsDriveReads(t *testing.T) {
	c := NewCompiler(CompilerOptions{Catalog: testCatalog()})
	// How each object is reached, and the parts that lookup reads itself.
	lookups := map[string]struct {
		expr  string
		parts marketdata.PartSet
	}{
		"market":         {"market", partSet(marketdata.PartMarket)},
		"stock":          {`stock("TSLA")`, 0},
		"position":       {`position("TSLAUSDT", "long")`, partSet(marketdata.PartPositions)},
		"balance":        {`balance("USDT")`, partSet(marketdata.PartBalances)},
		"order":          {`orders("TSLAUSDT")[0]`, partSet(marketdata.PartOrders)},
		"strategy_order": {`strategy_orders("TSLAUSDT")[0]`, partSet(marketdata.PartStrategyOrders)},
		"discount_tier":  {`discount_tiers("BTC")[0]`, partSet(marketdata.PartDiscount)},
		"spot_record":    {`spot_records[0]`, partSet(marketdata.PartSpotRecords)},
		"oco_leg":        {`strategy_orders("TSLAUSDT")[0].oco[0]`, partSet(marketdata.PartStrategyOrders)},
		"trailing_stop":  {`strategy_orders("TSLAUSDT")[0].trailing_stop[0]`, partSet(marketdata.PartStrategyOrders)},
		"iceberg":        {`strategy_orders("TSLAUSDT")[0].iceberg[0]`, partSet(marketdata.PartStrategyOrders)},
		"twap":           {`strategy_orders("TSLAUSDT")[0].twap[0]`, partSet(marketdata.PartStrategyOrders)},
		"ticker":         {`ticker("BTCUSDT")`, partSet(marketdata.PartTicker)},
		"book":           {`book("BTCUSDT")`, partSet(marketdata.PartFuturesBook)},
		"last_close":     {`last_close("TSLAUSDT")`, partSet(marketdata.PartClosedTrades)},
	}
	timeNames := marketdata.TimeFields()
	for _, o := range marketdata.Objects() {
		l, ok := lookups[o.Name]
		if !ok {
			t.Errorf("object %s: teach this test how a condition reaches it", o.Name)
			continue
		}
		for _, f := range o.Fields {
			t.Run(o.Name+"."+f.Name, func(t *testing.T) {
				read := l.expr + "." + f.Name
				p, errs := c.Condition(read + " == " + read)
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				if want := l.parts.Union(f.Parts()); p.Reads.Parts != want {
					t.Errorf("reads parts %s, the row names %s", p.Reads.Parts, want)
				}
				// Every market field follows the session; a field of
				// another object moves with time when its row says so, or
				// when a field of that name does in another object (a
				// field reached through a list is judged by its name).
				// last_close is reached through a function whose value
				// moves with the clock (minutes_ago, today's closes).
				if want := o.Name == "market" || o.Name == "last_close" || timeNames[f.Name] != 0; p.Reads.Time != want {
					t.Errorf("reads time %v, want %v (row: %d)", p.Reads.Time, want, f.Time)
				}
				if want := marketdata.TimeFieldsOf(o.Name, f.Name); p.Reads.DataTimeFields != want {
					t.Errorf("reads the aged fields %s, want %s", p.Reads.DataTimeFields, want)
				}
				if f.Clock == 0 {
					return
				}
				p, errs = c.Condition(read + " < 5")
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				want := []marketdata.ClockLimit{{Value: f.Clock, Limit: 5}}
				if fmt.Sprint(p.Reads.ClockLimits) != fmt.Sprint(want) || p.Reads.ClockOther {
					t.Errorf("clock limits %v (other %v), want %v", p.Reads.ClockLimits, p.Reads.ClockOther, want)
				}
			})
		}
	}
}

// partSet is the set of ps.
func partSet(ps ...marketdata.Part) marketdata.PartSet {
	var s marketdata.PartSet
	for _, p := range ps {
		s = s.Add(p)
	}
	return s
}
