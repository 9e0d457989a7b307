package simtest

import (
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

const (
	btc  = "BTCUSDT"
	eth  = "ETHUSDT"
	tsla = "TSLAUSDT"
	usdt = exchange.USDTFutures
)

var (
	buy    = exchange.Buy
	sell   = exchange.Sell
	limit  = exchange.Limit
	market = exchange.Market
)

// Cases returns the conformance table: one case per rule of the spec (and
// of the exchange notes where the spec says "not shown").
func Cases() []Case {
	return []Case{
		{"place/one-way limit rests with the spec's record fields", func(t *testing.T, e *Env) {
			ack := e.Place(t, e.OneWay, withClientOID(Order(btc, buy, limit, "0.01", "49000"), "c-1"))
			if ack.OrderID == "" || ack.ClientOID != "c-1" {
				t.Fatalf("ack = %+v", ack)
			}
			d := e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateLive)
			if d.PosSide != exchange.PosNet || d.TradeSide != exchange.BuySingle || d.EnterPointSource != exchange.SourceAPI ||
				d.OrderSource != exchange.OSNormal || d.Force != exchange.GTC || d.PosMode != exchange.OneWayMode || d.ReduceOnly != exchange.No {
				t.Fatalf("record = %+v", d)
			}
			if byCOID := e.Detail(t, e.OneWay, btc, "", "c-1"); byCOID.OrderID != ack.OrderID {
				t.Fatalf("detail by clientOid = %s, want %s", byCOID.OrderID, ack.OrderID)
			}
		}},
		{"place/tradeSide in one-way mode is 40774", func(t *testing.T, e *Env) {
			_, err := e.OneWay.PlaceOrder(e.Ctx, withTradeSide(Order(btc, buy, limit, "0.01", "49000"), exchange.Open))
			WantCode(t, err, exchange.CodeTradeSideOneWay)
		}},
		{"place/hedge mode requires tradeSide", func(t *testing.T, e *Env) {
			_, err := e.Hedge.PlaceOrder(e.Ctx, Order(btc, buy, limit, "0.01", "49000"))
			WantCode(t, err, exchange.CodeParamEmpty)
		}},
		{"place/limit order without price", func(t *testing.T, e *Env) {
			_, err := e.OneWay.PlaceOrder(e.Ctx, Order(btc, buy, limit, "0.01", ""))
			WantCode(t, err, exchange.CodeParamEmpty)
		}},
		{"place/contract rules", func(t *testing.T, e *Env) {
			for _, c := range []struct {
				name string
				req  exchange.PlaceOrderRequest
				code string
			}{
				{"unknown symbol", Order("XYZUSDT", buy, limit, "1", "1"), exchange.CodeSymbolInvalid},
				{"size decimals", Order(btc, buy, limit, "0.00001", "49000"), exchange.CodePrecisionSize},
				{"price decimals", Order(btc, buy, limit, "0.01", "49000.05"), exchange.CodePrecisionPrice},
				{"price step", Order(eth, buy, limit, "0.1", "2999.97"), exchange.CodePriceStep},
				{"below minimum size", Order(eth, buy, limit, "0.01", "2999.95"), exchange.CodeSizeBelowMin},
				{"above maximum size", Order(btc, buy, limit, "100.1", "49000"), exchange.CodeSizeAboveMax},
				{"above maximum market size", Order(btc, buy, market, "50.1", ""), exchange.CodeSizeAboveMax},
				{"below minimum value", Order(btc, buy, limit, "0.0001", "49000"), exchange.CodeValueBelowMin},
				{"balance", Order(btc, buy, limit, "99", "49000"), exchange.CodeBalanceNotEnough},
			} {
				t.Run(c.name, func(t *testing.T) {
					_, err := e.OneWay.PlaceOrder(e.Ctx, c.req)
					WantCode(t, err, c.code)
				})
			}
			ok := e.Place(t, e.OneWay, Order(eth, buy, limit, "0.1", "2999.95"))
			e.WantState(t, e.OneWay, eth, ok.OrderID, exchange.StateLive)
		}},
		{"place/market order fills against the book", func(t *testing.T, e *Env) {
			ack := e.Place(t, e.OneWay, Order(btc, buy, market, "0.05", ""))
			d := e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateFilled)
			if avg := d.PriceAvg.MustDecimal(); avg.LessThanOrEqual(dec("50000")) || !d.Fee.MustDecimal().IsNegative() {
				t.Fatalf("market buy: priceAvg %s (want above the mid 50000), fee %s (want negative)", d.PriceAvg, d.Fee)
			}
			e.WantPosition(t, e.OneWay, btc, exchange.Long, "0.05")
			fills, err := e.OneWay.Fills(e.Ctx, exchange.FillsRequest{ProductType: usdt, OrderID: ack.OrderID})
			Must(t, err)
			sum := dec("0")
			for _, f := range fills.FillList {
				sum = sum.Add(f.BaseVolume.MustDecimal())
				if f.TradeScope != "taker" || f.TradeSide != exchange.BuySingle {
					t.Fatalf("fill = %+v", f)
				}
			}
			if !sum.Equal(dec("0.05")) {
				t.Fatalf("fills sum to %s, want 0.05", sum)
			}
		}},
		{"place/one-way sell through a long flips the position", func(t *testing.T, e *Env) {
			e.Place(t, e.OneWay, Order(btc, buy, market, "0.02", ""))
			e.Place(t, e.OneWay, Order(btc, sell, market, "0.05", ""))
			e.WantPosition(t, e.OneWay, btc, exchange.Long, "0")
			e.WantPosition(t, e.OneWay, btc, exchange.Short, "0.03")
		}},
		{"place/limit order fills when the price path crosses it", func(t *testing.T, e *Env) {
			ack := e.Place(t, e.OneWay, Order(btc, buy, limit, "0.01", "49500"))
			e.Advance(time.Hour)
			e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateLive)
			e.Advance(time.Hour)
			d := e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateFilled)
			if d.PriceAvg.MustDecimal().Cmp(dec("49500")) != 0 {
				t.Fatalf("priceAvg = %s, want the limit price 49500", d.PriceAvg)
			}
			fills, err := e.OneWay.Fills(e.Ctx, exchange.FillsRequest{ProductType: usdt, OrderID: ack.OrderID})
			Must(t, err)
			if len(fills.FillList) != 1 || fills.FillList[0].TradeScope != "maker" {
				t.Fatalf("fills = %+v", fills.FillList)
			}
			e.WantPosition(t, e.OneWay, btc, exchange.Long, "0.01")
		}},
		{"force/post_only that would take is cancelled", func(t *testing.T, e *Env) {
			ack := e.Place(t, e.OneWay, withForce(Order(btc, buy, limit, "0.01", "50100"), exchange.PostOnly))
			e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateCanceled)
			e.WantPosition(t, e.OneWay, btc, exchange.Long, "0")
		}},
		{"force/ioc without liquidity at the price is cancelled", func(t *testing.T, e *Env) {
			ack := e.Place(t, e.OneWay, withForce(Order(btc, buy, limit, "0.01", "49000"), exchange.IOC))
			d := e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateCanceled)
			if !d.BaseVolume.IsZero() {
				t.Fatalf("ioc filled %s", d.BaseVolume)
			}
		}},
		{"force/fok larger than the depth at the price is cancelled unfilled", func(t *testing.T, e *Env) {
			ack := e.Place(t, e.OneWay, withForce(Order(btc, buy, limit, "5", "50006"), exchange.FOK))
			d := e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateCanceled)
			if !d.BaseVolume.IsZero() {
				t.Fatalf("fok filled %s", d.BaseVolume)
			}
		}},
		{"state/gtc takes what crosses and rests the rest as partially_filled", func(t *testing.T, e *Env) {
			ack := e.Place(t, e.OneWay, Order(btc, buy, limit, "5", "50006"))
			d := e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StatePartiallyFilled)
			if f := d.BaseVolume.MustDecimal(); !f.IsPositive() || !f.LessThan(dec("5")) {
				t.Fatalf("baseVolume = %s, want part of 5", d.BaseVolume)
			}
			p := e.Pending(t, e.OneWay, exchange.PendingOrdersRequest{Status: exchange.StatePartiallyFilled})
			if len(p.EntrustedList) != 1 || p.EntrustedList[0].OrderID != ack.OrderID {
				t.Fatalf("pending partially_filled = %+v", p.EntrustedList)
			}
			_, err := e.OneWay.ModifyOrder(e.Ctx, exchange.ModifyOrderRequest{Symbol: btc, ProductType: usdt, OrderID: ack.OrderID, NewClientOID: "pf", NewSize: "2", NewPrice: "49000"})
			WantCode(t, err, exchange.CodeModifyOnlyUnfilled)
			e.Advance(2 * time.Hour) // the path falls through 50006: the rest fills as maker
			e.WantState(t, e.OneWay, btc, ack.OrderID, exchange.StateFilled)
			e.WantPosition(t, e.OneWay, btc, exchange.Long, "5")
		}},
		{"stp/cancel_taker cancels the incoming order", func(t *testing.T, e *Env) {
			maker := e.Place(t, e.OneWay, Order(btc, sell, limit, "0.01", "50100"))
			req := Order(btc, buy, limit, "0.01", "50200")
			req.STPMode = exchange.STPCancelTaker
			taker := e.Place(t, e.OneWay, req)
			d := e.WantState(t, e.OneWay, btc, taker.OrderID, exchange.StateCanceled)
			if d.CancelReason != exchange.STPCancel {
				t.Fatalf("cancelReason = %q", d.CancelReason)
			}
			e.WantState(t, e.OneWay, btc, maker.OrderID, exchange.StateLive)
		}},
		{"stp/cancel_maker cancels the resting order", func(t *testing.T, e *Env) {
			maker := e.Place(t, e.OneWay, Order(btc, sell, limit, "0.01", "50100"))
			req := Order(btc, buy, limit, "0.01", "50200")
			req.STPMode = exchange.STPCancelMaker
			taker := e.Place(t, e.OneWay, req)
			if d := e.WantState(t, e.OneWay, btc, maker.OrderID, exchange.StateCanceled); d.CancelReason != exchange.STPCancel {
				t.Fatalf("maker cancelReason = %q", d.CancelReason)
			}
			e.WantState(t, e.OneWay, btc, taker.OrderID, exchange.StateFilled)
		}},
		{"one-way/rule 2: reduce-only orders over the position cancel older ones", func(t *testing.T, e *Env) {
			e.Place(t, e.OneWay, Order(btc, buy, market, "0.03", ""))
			ro := func(size, price, coid string) exchange.PlaceOrderRequest {
				r := withClientOID(Order(btc, sell, limit, size, price), coid)
				r.ReduceOnly = exchange.Yes
				return r
			}
			a := e.Place(t, e.OneWay, ro("0.01", "60000", "ro-a"))
			b := e.Place(t, e.OneWay, ro("0.01", "60001", "ro-b"))
			c := e.Place(t, e.OneWay, ro("0.02", "60002", "ro-c"))
			if c.OrderID != "" || c.ClientOID != "ro-c" {
				t.Fatalf("newest reduce-only ack = %+v, want no orderId", c)
			}
			e.WantState(t, e.OneWay, btc, a.OrderID, exchange.StateCanceled)
			e.WantState(t, e.OneWay, btc, b.OrderID, exchange.StateLive)
			if d := e.Detail(t, e.OneWay, btc, "", "ro-c"); d.State != exchange.StateLive || d.TradeSide != exchange.ReduceSellSingle || d.ReduceOnly != exchange.Yes {
				t.Fatalf("newest reduce-only = %+v", d)
			}
		}},
		{"one-way/reduce-only without a position is 22002", func(t *testing.T, e *Env) {
			r := Order(btc, sell, limit, "0.01", "60000")
			r.ReduceOnly = exchange.Yes
			_, err := e.OneWay.PlaceOrder(e.Ctx, r)
			WantCode(t, err, exchange.CodeNoPosition)
		}},
		{"hedge/rule 1: open and close map to the position's side", func(t *testing.T, e *Env) {
			open := e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, market, "0.02", ""), exchange.Open))
			if d := e.Detail(t, e.Hedge, btc, open.OrderID, ""); d.PosSide != exchange.PosLong || d.TradeSide != exchange.Open {
				t.Fatalf("open long record = %+v", d)
			}
			e.WantPosition(t, e.Hedge, btc, exchange.Long, "0.02")
			_, err := e.Hedge.PlaceOrder(e.Ctx, withTradeSide(Order(btc, sell, market, "0.01", ""), exchange.Close))
			WantCode(t, err, exchange.CodeNoPosition) // sell+close closes a short, and there is none
			e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, market, "0.02", ""), exchange.Close))
			e.WantPosition(t, e.Hedge, btc, exchange.Long, "0")
		}},
		{"hedge/rule 3: a market close over the held size closes only the free part", func(t *testing.T, e *Env) {
			e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, market, "0.03", ""), exchange.Open))
			held := e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, limit, "0.01", "60000"), exchange.Close))
			e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, market, "0.03", ""), exchange.Close))
			e.WantPosition(t, e.Hedge, btc, exchange.Long, "0.01")
			e.WantState(t, e.Hedge, btc, held.OrderID, exchange.StateLive)
		}},
		{"hedge/rule 4: close orders holding the whole position give way", func(t *testing.T, e *Env) {
			e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, market, "0.02", ""), exchange.Open))
			held := e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, limit, "0.02", "60000"), exchange.Close))
			next := e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, limit, "0.01", "61000"), exchange.Close))
			e.WantState(t, e.Hedge, btc, held.OrderID, exchange.StateCanceled)
			e.WantState(t, e.Hedge, btc, next.OrderID, exchange.StateLive)
		}},
		{"backhand/one-way reverses the whole position, size ignored", func(t *testing.T, e *Env) {
			e.Place(t, e.OneWay, Order(btc, buy, market, "0.02", ""))
			ack, err := e.OneWay.ClickBackhand(e.Ctx, exchange.ClickBackhandRequest{Symbol: btc, MarginCoin: "USDT", ProductType: usdt, Side: buy, Size: "0.005"})
			Must(t, err)
			e.WantPosition(t, e.OneWay, btc, exchange.Short, "0.02")
			if d := e.Detail(t, e.OneWay, btc, ack.OrderID, ""); d.OrderSource != exchange.OSReverse {
				t.Fatalf("orderSource = %s, want reverse", d.OrderSource)
			}
			_, err = e.OneWay.ClickBackhand(e.Ctx, exchange.ClickBackhandRequest{Symbol: btc, MarginCoin: "USDT", ProductType: usdt, Side: sell, TradeSide: exchange.Open})
			WantCode(t, err, exchange.CodeTradeSideOneWay)
		}},
		{"backhand/hedge rules 3-5", func(t *testing.T, e *Env) {
			e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, market, "0.03", ""), exchange.Open))
			rev := func(size string) {
				t.Helper()
				_, err := e.Hedge.ClickBackhand(e.Ctx, exchange.ClickBackhandRequest{Symbol: btc, MarginCoin: "USDT", ProductType: usdt, Side: buy, TradeSide: exchange.Open, Size: exchange.Num(size)})
				Must(t, err)
			}
			rev("0.01") // rule 4: smaller than the position
			e.WantPosition(t, e.Hedge, btc, exchange.Long, "0.02")
			e.WantPosition(t, e.Hedge, btc, exchange.Short, "0.01")
			rev("0.5") // rule 5: at least the position
			e.WantPosition(t, e.Hedge, btc, exchange.Long, "0")
			e.WantPosition(t, e.Hedge, btc, exchange.Short, "0.03")
			_, err := e.Hedge.ClickBackhand(e.Ctx, exchange.ClickBackhandRequest{Symbol: btc, MarginCoin: "USDT", ProductType: usdt, Side: sell, TradeSide: exchange.Open})
			Must(t, err) // rule 3: size omitted, the whole short reverses
			e.WantPosition(t, e.Hedge, btc, exchange.Long, "0.03")
			e.WantPosition(t, e.Hedge, btc, exchange.Short, "0")
		}},
		{"batch/per-item failures and result false", func(t *testing.T, e *Env) {
			res, err := e.OneWay.BatchPlaceOrder(e.Ctx, exchange.BatchPlaceOrderRequest{
				Symbol: btc, ProductType: usdt, MarginCoin: "USDT", MarginMode: exchange.Crossed,
				OrderList: []exchange.BatchOrder{
					{Size: "0.01", Price: "49000", Side: buy, OrderType: limit, ClientOID: "b-1"},
					{Size: "0.01", Price: "49000.05", Side: buy, OrderType: limit, ClientOID: "b-2"},
					{Size: "0.01", Price: "48000", Side: buy, OrderType: limit, ClientOID: "b-3"},
				},
			})
			Must(t, err)
			if res.Result || len(res.SuccessList) != 2 || len(res.FailureList) != 1 || res.FailureList[0].ClientOID != "b-2" {
				t.Fatalf("batch result = %+v", res)
			}
			all, err := e.OneWay.BatchPlaceOrder(e.Ctx, exchange.BatchPlaceOrderRequest{
				Symbol: btc, ProductType: usdt, MarginCoin: "USDT", MarginMode: exchange.Crossed,
				OrderList: []exchange.BatchOrder{{Size: "0.01", Price: "47000", Side: buy, OrderType: limit}},
			})
			Must(t, err)
			if !all.Result || len(all.FailureList) != 0 {
				t.Fatalf("all-good batch = %+v", all)
			}
		}},
		{"batch/more than 50 orders is 40912", func(t *testing.T, e *Env) {
			list := make([]exchange.BatchOrder, 51)
			for i := range list {
				list[i] = exchange.BatchOrder{Size: "0.01", Price: "49000", Side: buy, OrderType: limit}
			}
			_, err := e.OneWay.BatchPlaceOrder(e.Ctx, exchange.BatchPlaceOrderRequest{Symbol: btc, ProductType: usdt, MarginCoin: "USDT", MarginMode: exchange.Crossed, OrderList: list})
			WantCode(t, err, exchange.CodeBatchTooLarge)
		}},
		{"modify/size and price: old cancelled, new order under newClientOid", func(t *testing.T, e *Env) {
			req := withClientOID(Order(btc, buy, limit, "0.01", "49000"), "m-old")
			req.PresetStopSurplusPrice = "55000"
			old := e.Place(t, e.OneWay, req)
			ack, err := e.OneWay.ModifyOrder(e.Ctx, exchange.ModifyOrderRequest{Symbol: btc, ProductType: usdt, OrderID: old.OrderID, NewClientOID: "m-new", NewSize: "0.02", NewPrice: "48000", NewPresetStopLossPrice: "40000"})
			Must(t, err)
			if ack.OrderID != "" || ack.ClientOID != "m-new" {
				t.Fatalf("modify ack = %+v, want no orderId", ack)
			}
			e.WantState(t, e.OneWay, btc, old.OrderID, exchange.StateCanceled)
			nd := e.Detail(t, e.OneWay, btc, "", "m-new")
			if nd.OrderID == old.OrderID || nd.State != exchange.StateLive || nd.Size != "0.02" || nd.Price != "48000" {
				t.Fatalf("new order = %+v", nd)
			}
			if nd.PresetStopSurplusPrice != "55000" || nd.PresetStopLossPrice != "" {
				t.Fatalf("rule 4: presets sent with size and price take no effect; got tp %q sl %q", nd.PresetStopSurplusPrice, nd.PresetStopLossPrice)
			}
		}},
		{"modify/presets: kept, set, deleted with 0, the other cancelled", func(t *testing.T, e *Env) {
			req := withClientOID(Order(btc, buy, limit, "0.01", "49000"), "p-1")
			req.PresetStopSurplusPrice, req.PresetStopLossPrice = "55000", "45000"
			o := e.Place(t, e.OneWay, req)
			mod := func(coid, tp, sl string) exchange.OrderDetail {
				t.Helper()
				_, err := e.OneWay.ModifyOrder(e.Ctx, exchange.ModifyOrderRequest{Symbol: btc, ProductType: usdt, OrderID: o.OrderID, NewClientOID: coid, NewPresetStopSurplusPrice: exchange.Num(tp), NewPresetStopLossPrice: exchange.Num(sl)})
				Must(t, err)
				return e.Detail(t, e.OneWay, btc, o.OrderID, "")
			}
			if d := mod("p-2", "56000", "44000"); d.PresetStopSurplusPrice != "56000" || d.PresetStopLossPrice != "44000" || d.ClientOID != "p-2" {
				t.Fatalf("both set: %+v", d)
			}
			if d := mod("p-3", "57000", ""); d.PresetStopSurplusPrice != "57000" || d.PresetStopLossPrice != "" {
				t.Fatalf("rule 5, only take-profit sent: tp %q sl %q", d.PresetStopSurplusPrice, d.PresetStopLossPrice)
			}
			if d := mod("p-4", "0", "43000"); d.PresetStopSurplusPrice != "" || d.PresetStopLossPrice != "43000" {
				t.Fatalf("0 deletes: tp %q sl %q", d.PresetStopSurplusPrice, d.PresetStopLossPrice)
			}
			e.WantState(t, e.OneWay, btc, o.OrderID, exchange.StateLive)
		}},
		{"modify/rules 1 and 3 and newClientOid", func(t *testing.T, e *Env) {
			filled := e.Place(t, e.OneWay, Order(btc, buy, market, "0.01", ""))
			_, err := e.OneWay.ModifyOrder(e.Ctx, exchange.ModifyOrderRequest{Symbol: btc, ProductType: usdt, OrderID: filled.OrderID, NewClientOID: "x1", NewSize: "0.02", NewPrice: "48000"})
			WantCode(t, err, exchange.CodeModifyOnlyUnfilled)
			live := e.Place(t, e.OneWay, Order(btc, buy, limit, "0.01", "49000"))
			_, err = e.OneWay.ModifyOrder(e.Ctx, exchange.ModifyOrderRequest{Symbol: btc, ProductType: usdt, OrderID: live.OrderID, NewClientOID: "x2", NewSize: "0.02"})
			WantCode(t, err, exchange.CodeSizePriceTogether)
			_, err = e.OneWay.ModifyOrder(e.Ctx, exchange.ModifyOrderRequest{Symbol: btc, ProductType: usdt, OrderID: live.OrderID, NewSize: "0.02", NewPrice: "48000"})
			WantCode(t, err, exchange.CodeModifyNoNewOID)
			_, err = e.OneWay.ModifyOrder(e.Ctx, exchange.ModifyOrderRequest{Symbol: btc, ProductType: usdt, OrderID: "1", NewClientOID: "x3", NewSize: "0.02", NewPrice: "48000"})
			WantCode(t, err, exchange.CodeOrderNotExist2)
		}},
		{"cancel/one order, twice", func(t *testing.T, e *Env) {
			o := e.Place(t, e.OneWay, withClientOID(Order(btc, buy, limit, "0.01", "49000"), "k-1"))
			ack, err := e.OneWay.CancelOrder(e.Ctx, exchange.CancelOrderRequest{Symbol: btc, ProductType: usdt, ClientOID: "k-1"})
			Must(t, err)
			if ack.OrderID != o.OrderID {
				t.Fatalf("cancel ack = %+v", ack)
			}
			if d := e.WantState(t, e.OneWay, btc, o.OrderID, exchange.StateCanceled); d.CancelReason != exchange.NormalCancel {
				t.Fatalf("cancelReason = %q", d.CancelReason)
			}
			_, err = e.OneWay.CancelOrder(e.Ctx, exchange.CancelOrderRequest{Symbol: btc, ProductType: usdt, OrderID: o.OrderID})
			WantCode(t, err, exchange.CodeNoOrderCancel)
		}},
		{"cancel/batch by list with a missing order, then by symbol, then all", func(t *testing.T, e *Env) {
			a := e.Place(t, e.OneWay, Order(btc, buy, limit, "0.01", "49000"))
			e.Place(t, e.OneWay, Order(btc, buy, limit, "0.01", "48000"))
			e.Place(t, e.OneWay, Order(eth, buy, limit, "0.1", "2900"))
			res, err := e.OneWay.BatchCancelOrders(e.Ctx, exchange.BatchCancelOrdersRequest{ProductType: usdt, Symbol: btc, OrderIDList: []exchange.OrderRef{{OrderID: a.OrderID}, {OrderID: "999"}}})
			Must(t, err)
			if len(res.SuccessList) != 1 || len(res.FailureList) != 1 || res.FailureList[0].ErrorCode != exchange.CodeNoOrderCancel {
				t.Fatalf("batch cancel by list = %+v", res)
			}
			res, err = e.OneWay.BatchCancelOrders(e.Ctx, exchange.BatchCancelOrdersRequest{ProductType: usdt, Symbol: btc})
			Must(t, err)
			if len(res.SuccessList) != 1 {
				t.Fatalf("batch cancel by symbol = %+v", res)
			}
			all, err := e.OneWay.CancelAllOrders(e.Ctx, exchange.CancelAllOrdersRequest{ProductType: usdt})
			Must(t, err)
			if len(all.SuccessList) != 1 {
				t.Fatalf("cancel-all = %+v", all)
			}
			if p := e.Pending(t, e.OneWay, exchange.PendingOrdersRequest{}); len(p.EntrustedList) != 0 {
				t.Fatalf("pending after cancel-all: %d", len(p.EntrustedList))
			}
		}},
		{"close-positions/one-way ignores holdSide, hedge closes one side or both", func(t *testing.T, e *Env) {
			e.Place(t, e.OneWay, Order(btc, buy, market, "0.02", ""))
			res, err := e.OneWay.ClosePositions(e.Ctx, exchange.ClosePositionsRequest{ProductType: usdt, Symbol: btc, HoldSide: exchange.Short})
			Must(t, err)
			if len(res.SuccessList) != 1 || res.SuccessList[0].Symbol != btc {
				t.Fatalf("close one-way = %+v", res)
			}
			e.WantPosition(t, e.OneWay, btc, exchange.Long, "0")
			_, err = e.OneWay.ClosePositions(e.Ctx, exchange.ClosePositionsRequest{ProductType: usdt})
			WantCode(t, err, exchange.CodeNoPosition)

			e.Place(t, e.Hedge, withTradeSide(Order(btc, buy, market, "0.02", ""), exchange.Open))
			e.Place(t, e.Hedge, withTradeSide(Order(btc, sell, market, "0.01", ""), exchange.Open))
			_, err = e.Hedge.ClosePositions(e.Ctx, exchange.ClosePositionsRequest{ProductType: usdt, Symbol: btc, HoldSide: exchange.Short})
			Must(t, err)
			e.WantPosition(t, e.Hedge, btc, exchange.Long, "0.02")
			e.WantPosition(t, e.Hedge, btc, exchange.Short, "0")
			e.Place(t, e.Hedge, withTradeSide(Order(btc, sell, market, "0.01", ""), exchange.Open))
			res, err = e.Hedge.ClosePositions(e.Ctx, exchange.ClosePositionsRequest{ProductType: usdt})
			Must(t, err)
			if len(res.SuccessList) != 2 {
				t.Fatalf("close both = %+v", res)
			}
		}},
		{"position-mode/40920 while orders or positions exist", func(t *testing.T, e *Env) {
			o := e.Place(t, e.OneWay, Order(btc, buy, limit, "0.01", "49000"))
			_, err := e.OneWay.SetPositionMode(e.Ctx, exchange.SetPositionModeRequest{ProductType: usdt, PosMode: exchange.HedgeMode})
			WantCode(t, err, exchange.CodePosModeLocked)
			_, err = e.OneWay.CancelOrder(e.Ctx, exchange.CancelOrderRequest{Symbol: btc, ProductType: usdt, OrderID: o.OrderID})
			Must(t, err)
			_, err = e.OneWay.SetPositionMode(e.Ctx, exchange.SetPositionModeRequest{ProductType: usdt, PosMode: exchange.HedgeMode})
			Must(t, err)
			acc, err := e.OneWay.Accounts(e.Ctx, exchange.AccountsRequest{ProductType: usdt})
			Must(t, err)
			// As on the live venue, the accounts list carries no posMode;
			// the single account does.
			if len(acc) != 1 || acc[0].PosMode != "" || acc[0].MarginCoin != "USDT" || acc[0].MaxTransferOut == "" {
				t.Fatalf("accounts = %+v", acc)
			}
			mr, ok := e.OneWay.(exchange.ModeSource)
			if !ok {
				t.Fatalf("%T cannot read the single account", e.OneWay)
			}
			mode, err := mr.AccountPositionMode(e.Ctx, usdt, btc, "USDT")
			Must(t, err)
			if mode != exchange.HedgeMode {
				t.Fatalf("position mode = %q, want hedge_mode", mode)
			}
			_, err = e.OneWay.PlaceOrder(e.Ctx, Order(btc, buy, limit, "0.01", "49000"))
			WantCode(t, err, exchange.CodeParamEmpty) // hedge now: tradeSide required
		}},
		{"query/pending pagination newest first with idLessThan and endId", func(t *testing.T, e *Env) {
			var ids []string
			for i := range 5 {
				ids = append(ids, e.Place(t, e.OneWay, Order(btc, buy, limit, "0.01", []string{"49000", "48900", "48800", "48700", "48600"}[i])).OrderID)
			}
			var got []string
			cursor := ""
			for range 4 {
				p := e.Pending(t, e.OneWay, exchange.PendingOrdersRequest{Limit: 2, IDLessThan: cursor})
				if len(p.EntrustedList) == 0 {
					break
				}
				for _, o := range p.EntrustedList {
					got = append(got, o.OrderID)
				}
				if p.EndID != p.EntrustedList[len(p.EntrustedList)-1].OrderID {
					t.Fatalf("endId %s is not the last id of the page", p.EndID)
				}
				cursor = p.EndID
			}
			want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
			if len(got) != 5 {
				t.Fatalf("paged ids = %v, want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("paged ids = %v, want %v", got, want)
				}
			}
			if p := e.Pending(t, e.OneWay, exchange.PendingOrdersRequest{Status: exchange.StatePartiallyFilled}); len(p.EntrustedList) != 0 {
				t.Fatalf("status filter partially_filled returned %d orders", len(p.EntrustedList))
			}
		}},
		{"query/filters and fill pagination", func(t *testing.T, e *Env) {
			a := e.Place(t, e.OneWay, withClientOID(Order(btc, buy, limit, "0.01", "49000"), "f-a"))
			e.Place(t, e.OneWay, withClientOID(Order(btc, buy, limit, "0.01", "48000"), "f-b"))
			if p := e.Pending(t, e.OneWay, exchange.PendingOrdersRequest{OrderID: a.OrderID, ClientOID: "f-b"}); len(p.EntrustedList) != 1 || p.EntrustedList[0].ClientOID != "f-a" {
				t.Fatalf("orderId wins over clientOid: %+v", p.EntrustedList)
			}
			if p := e.Pending(t, e.OneWay, exchange.PendingOrdersRequest{ClientOID: "f-b"}); len(p.EntrustedList) != 1 || p.EntrustedList[0].ClientOID != "f-b" {
				t.Fatalf("clientOid filter: %+v", p.EntrustedList)
			}
			_, err := e.OneWay.OrderDetail(e.Ctx, exchange.OrderDetailRequest{Symbol: eth, ProductType: usdt, OrderID: a.OrderID})
			WantCode(t, err, exchange.CodeOrderNotExist2)
			_, err = e.OneWay.BatchCancelOrders(e.Ctx, exchange.BatchCancelOrdersRequest{ProductType: usdt, OrderIDList: []exchange.OrderRef{{OrderID: a.OrderID}}})
			WantCode(t, err, exchange.CodeParamEmpty)
			for range 3 {
				e.Place(t, e.OneWay, Order(btc, buy, market, "0.01", ""))
			}
			all, err := e.OneWay.Fills(e.Ctx, exchange.FillsRequest{ProductType: usdt, Symbol: btc})
			Must(t, err)
			if len(all.FillList) < 3 {
				t.Fatalf("fills = %d, want at least 3", len(all.FillList))
			}
			var paged []string
			cursor := ""
			for range len(all.FillList) + 1 {
				p, err := e.OneWay.Fills(e.Ctx, exchange.FillsRequest{ProductType: usdt, Symbol: btc, Limit: 1, IDLessThan: cursor})
				Must(t, err)
				if len(p.FillList) == 0 {
					break
				}
				paged = append(paged, p.FillList[0].TradeID)
				cursor = p.EndID
			}
			if len(paged) != len(all.FillList) {
				t.Fatalf("paged %d fills one by one, the full page has %d", len(paged), len(all.FillList))
			}
			for i, f := range all.FillList {
				if paged[i] != f.TradeID {
					t.Fatalf("fill %d: paged %s, full page %s", i, paged[i], f.TradeID)
				}
			}
		}},
		{"query/history by orderSource, fill-history span", func(t *testing.T, e *Env) {
			e.Place(t, e.OneWay, Order(btc, buy, market, "0.02", ""))
			_, err := e.OneWay.ClickBackhand(e.Ctx, exchange.ClickBackhandRequest{Symbol: btc, MarginCoin: "USDT", ProductType: usdt, Side: buy})
			Must(t, err)
			h, err := e.OneWay.OrderHistory(e.Ctx, exchange.OrderHistoryRequest{ProductType: usdt, OrderSource: exchange.OSReverse})
			Must(t, err)
			if len(h.EntrustedList) != 1 || h.EntrustedList[0].OrderSource != exchange.OSReverse {
				t.Fatalf("history by orderSource = %+v", h.EntrustedList)
			}
			all, err := e.OneWay.OrderHistory(e.Ctx, exchange.OrderHistoryRequest{ProductType: usdt})
			Must(t, err)
			if len(all.EntrustedList) != 2 {
				t.Fatalf("history = %d orders, want 2", len(all.EntrustedList))
			}
			start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
			_, err = e.OneWay.FillHistory(e.Ctx, exchange.FillHistoryRequest{ProductType: usdt, StartTime: exchange.MillisOf(start), EndTime: exchange.MillisOf(start.Add(8 * 24 * time.Hour))})
			WantCode(t, err, exchange.CodeSpanTooLarge)
			fh, err := e.OneWay.FillHistory(e.Ctx, exchange.FillHistoryRequest{ProductType: usdt, StartTime: exchange.MillisOf(start.Add(10 * 24 * time.Hour))})
			Must(t, err)
			if len(fh.FillList) == 0 {
				t.Fatalf("fill-history found no fills in the week from 2026-03-11")
			}
		}},
		{"stock-future/closed market rejects new orders, cancels still work", func(t *testing.T, e *Env) {
			o := e.Place(t, e.OneWay, Order(tsla, buy, limit, "1", "390"))
			e.Advance(15 * time.Hour) // Saturday 01:00 UTC-4
			_, err := e.OneWay.PlaceOrder(e.Ctx, Order(tsla, buy, limit, "1", "390"))
			WantCode(t, err, "45135")
			_, err = e.OneWay.CancelOrder(e.Ctx, exchange.CancelOrderRequest{Symbol: tsla, ProductType: usdt, OrderID: o.OrderID})
			Must(t, err)
			e.Place(t, e.OneWay, Order(btc, buy, limit, "0.01", "40000")) // crypto trades on
		}},
		{"records/strategy orders, discount tiers, spot records", func(t *testing.T, e *Env) {
			so, err := e.OneWay.StrategyOrders(e.Ctx, exchange.StrategyOrdersRequest{Category: exchange.CategoryUSDTFutures})
			Must(t, err)
			if len(so) != 1 || so[0].Type() != exchange.StrategyTPSL {
				t.Fatalf("strategy orders = %+v", so)
			}
			oco, err := e.OneWay.StrategyOrders(e.Ctx, exchange.StrategyOrdersRequest{Category: exchange.CategorySpot, Type: exchange.StrategyOCO})
			Must(t, err)
			if len(oco) != 1 || len(oco[0].OCOParams) != 1 {
				t.Fatalf("oco orders = %+v", oco)
			}
			d, err := e.OneWay.DiscountRates(e.Ctx, exchange.DiscountRateRequest{Coin: "ETH"})
			Must(t, err)
			if len(d) != 1 || d[0].Coin != "ETH" {
				t.Fatalf("discount ETH = %+v", d)
			}
			all, err := e.OneWay.DiscountRates(e.Ctx, exchange.DiscountRateRequest{})
			Must(t, err)
			if len(all) != 2 {
				t.Fatalf("discount all = %d coins", len(all))
			}
			from := time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC)
			recs, err := e.OneWay.SpotRecords(e.Ctx, exchange.SpotRecordRequest{StartTime: exchange.MillisOf(from), EndTime: exchange.MillisOf(from.Add(20 * 24 * time.Hour)), Limit: 2})
			Must(t, err)
			if len(recs) != 2 || recs[0].ID != "3" || recs[1].ID != "2" {
				t.Fatalf("spot records page 1 = %+v", recs)
			}
			next, err := e.OneWay.SpotRecords(e.Ctx, exchange.SpotRecordRequest{StartTime: exchange.MillisOf(from), EndTime: exchange.MillisOf(from.Add(20 * 24 * time.Hour)), IDLessThan: "2"})
			Must(t, err)
			if len(next) != 1 || next[0].ID != "1" {
				t.Fatalf("spot records page 2 = %+v", next)
			}
			usdtOnly, err := e.OneWay.SpotRecords(e.Ctx, exchange.SpotRecordRequest{Coin: "USDT", StartTime: exchange.MillisOf(from), EndTime: exchange.MillisOf(from.Add(20 * 24 * time.Hour))})
			Must(t, err)
			if len(usdtOnly) != 2 {
				t.Fatalf("spot records of USDT = %+v", usdtOnly)
			}
			_, err = e.OneWay.SpotRecords(e.Ctx, exchange.SpotRecordRequest{StartTime: exchange.MillisOf(from), EndTime: exchange.MillisOf(from.Add(31 * 24 * time.Hour))})
			WantCode(t, err, exchange.CodeSpanTooLarge)
		}},
		{"market/contracts, ticker, positions", func(t *testing.T, e *Env) {
			cs, err := e.OneWay.Contracts(e.Ctx, exchange.ContractsRequest{ProductType: usdt})
			Must(t, err)
			if len(cs) != 3 || cs[0].Symbol != btc || cs[0].PricePlace != "1" || cs[2].IsRwa != exchange.Yes {
				t.Fatalf("contracts = %+v", cs)
			}
			tk, err := e.OneWay.Ticker(e.Ctx, exchange.TickerRequest{Symbol: btc, ProductType: usdt})
			Must(t, err)
			if len(tk) != 1 || tk[0].LastPr != "50000" || !tk[0].BidPr.MustDecimal().LessThan(tk[0].AskPr.MustDecimal()) {
				t.Fatalf("ticker = %+v", tk)
			}
			iso := Order(btc, buy, market, "0.1", "")
			iso.MarginMode = exchange.Isolated
			e.Place(t, e.OneWay, iso)
			ps, err := e.OneWay.SinglePosition(e.Ctx, exchange.SinglePositionRequest{ProductType: usdt, Symbol: btc, MarginCoin: "USDT"})
			Must(t, err)
			if len(ps) != 1 {
				t.Fatalf("single-position = %+v", ps)
			}
			p := ps[0]
			liq, avg := p.LiquidationPrice.MustDecimal(), p.OpenPriceAvg.MustDecimal()
			// Isolated long at 10x: avg * (1 - 1/10 + 0.004).
			if p.HoldSide != exchange.Long || p.PosMode != exchange.OneWayMode || p.Leverage != "10" || p.MarginMode != exchange.Isolated ||
				!liq.Equal(avg.Mul(dec("0.904")).Round(1)) {
				t.Fatalf("position = %+v", p)
			}
			e.Advance(3 * time.Hour) // 51000
			// change24h: within the path's first day, from its first price
			// (50000): 1000 / 50000.
			if tk, err := e.OneWay.Ticker(e.Ctx, exchange.TickerRequest{Symbol: btc, ProductType: usdt}); err != nil || tk[0].LastPr != "51000" || tk[0].Change24h != "0.02" {
				t.Fatalf("ticker after 3h = %+v, %v; want last 51000, change24h 0.02", tk, err)
			}
			ps, err = e.OneWay.SinglePosition(e.Ctx, exchange.SinglePositionRequest{ProductType: usdt, Symbol: btc, MarginCoin: "USDT"})
			Must(t, err)
			if !ps[0].UnrealizedPL.MustDecimal().IsPositive() {
				t.Fatalf("unrealizedPL at 51000 = %s, want a profit", ps[0].UnrealizedPL)
			}
		}},
		{"strategy/a fill with presets creates the position's tpsl order, which triggers and goes", func(t *testing.T, e *Env) {
			list := func() []exchange.StrategyOrder {
				out, err := e.Hedge.StrategyOrders(e.Ctx, exchange.StrategyOrdersRequest{Category: exchange.CategoryUSDTFutures, Type: exchange.StrategyTPSL})
				Must(t, err)
				var mine []exchange.StrategyOrder
				for _, so := range out {
					if so.ClientOID != "s-tpsl" { // the scenario's own
						mine = append(mine, so)
					}
				}
				return mine
			}
			req := withTradeSide(Order(btc, sell, market, "0.01", ""), exchange.Open)
			req.PresetStopSurplusPrice, req.PresetStopLossPrice = "49500", "50500"
			e.Place(t, e.Hedge, req)
			got := list()
			if len(got) != 1 || got[0].PosSide != exchange.Short || got[0].Qty != "0.01" || got[0].TakeProfit != "49500" ||
				got[0].StopLoss != "50500" || got[0].Status != exchange.StrategyPending || got[0].Category != usdt {
				t.Fatalf("strategy orders after the fill = %+v", got)
			}
			e.Advance(90 * time.Minute) // 49500: the take-profit
			if got := list(); len(got) != 0 {
				t.Fatalf("strategy orders after the take-profit = %+v, want none", got)
			}
			e.WantPosition(t, e.Hedge, btc, exchange.Short, "0")
		}},
		{"market/merge-depth is the book the ticker's top comes from", func(t *testing.T, e *Env) {
			tk, err := e.OneWay.Ticker(e.Ctx, exchange.TickerRequest{Symbol: btc, ProductType: usdt})
			Must(t, err)
			d, err := e.OneWay.MergeDepth(e.Ctx, exchange.MergeDepthRequest{Symbol: btc, ProductType: usdt, Limit: "5"})
			Must(t, err)
			if len(d.Bids) != 5 || len(d.Asks) != 5 || d.Bids[0] != (exchange.PriceLevel{tk[0].BidPr, tk[0].BidSz}) ||
				d.Asks[0] != (exchange.PriceLevel{tk[0].AskPr, tk[0].AskSz}) || d.Precision != "scale0" || d.TS.Int() == 0 {
				t.Fatalf("merge-depth = %+v, ticker = %+v", d, tk[0])
			}
			for i := 1; i < 5; i++ {
				if !d.Bids[i].Price().MustDecimal().LessThan(d.Bids[i-1].Price().MustDecimal()) ||
					!d.Asks[i].Price().MustDecimal().GreaterThan(d.Asks[i-1].Price().MustDecimal()) {
					t.Fatalf("levels out of order: %+v", d)
				}
			}
			_, err = e.OneWay.MergeDepth(e.Ctx, exchange.MergeDepthRequest{Symbol: btc, ProductType: usdt, Limit: "7"})
			WantCode(t, err, exchange.CodeParamVerify)
			_, err = e.OneWay.MergeDepth(e.Ctx, exchange.MergeDepthRequest{Symbol: "NOPEUSDT", ProductType: usdt})
			if err == nil {
				t.Fatal("merge-depth of an unknown contract answered")
			}
		}},
		{"position/history-position lists a position once it is closed to zero", func(t *testing.T, e *Env) {
			history := func() []exchange.HistoryPosition {
				t.Helper()
				p, err := e.OneWay.PositionHistory(e.Ctx, exchange.PositionHistoryRequest{ProductType: usdt, Symbol: btc})
				Must(t, err)
				return p.List
			}
			before := len(history())
			e.Place(t, e.OneWay, Order(btc, exchange.Buy, exchange.Market, "0.02", ""))
			e.Advance(time.Minute)
			if got := history(); len(got) != before {
				t.Fatalf("history while the position is open: %d records, want %d", len(got), before)
			}
			_, err := e.OneWay.ClosePositions(e.Ctx, exchange.ClosePositionsRequest{ProductType: usdt, Symbol: btc})
			Must(t, err)
			got := history()
			if len(got) != before+1 {
				t.Fatalf("history after the close: %d records, want %d", len(got), before+1)
			}
			h := got[0]
			if h.Symbol != btc || h.HoldSide != exchange.Long || h.CloseTotalPos != "0.02" || h.UTime.Int() <= h.CTime.Int() ||
				!h.OpenFee.MustDecimal().IsNegative() || !h.CloseFee.MustDecimal().IsNegative() {
				t.Fatalf("record = %+v, want the long of 0.02, fees paid (negative), closed after it opened", h)
			}
			net := h.Pnl.MustDecimal().Add(h.OpenFee.MustDecimal()).Add(h.CloseFee.MustDecimal()).Add(h.TotalFunding.MustDecimal())
			if !net.Equal(h.NetProfit.MustDecimal()) {
				t.Fatalf("netProfit %s, pnl + fees + funding %s", h.NetProfit, net)
			}
			_, err = e.OneWay.PositionHistory(e.Ctx, exchange.PositionHistoryRequest{ProductType: usdt, Limit: 101})
			WantCode(t, err, exchange.CodeParamVerify)
		}},
	}
}
