package sim

import (
	"context"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// FuzzTrading sends arbitrary field values through place-order, modify and
// cancel, then reads everything back: nothing a client sends may panic the
// exchange, and the account's invariants hold afterwards.
func FuzzTrading(f *testing.F) {
	f.Add("BTCUSDT", "0.01", "49000", "buy", "limit", "gtc", "", "", "none", "c1", "0.02", "48000", int64(3600))
	f.Add("BTCUSDT", "0.05", "", "sell", "market", "", "", "YES", "cancel_taker", "", "", "", int64(0))
	f.Add("ETHUSDT", "1", "3000.05", "buy", "limit", "post_only", "open", "NO", "cancel_both", "x#y", "2", "2990", int64(60))
	f.Add("TSLAUSDT", "-1", "0", "BUY", "LIMIT", "fok", "close", "yes", "weird", "", "1e3", "NaN", int64(86400))
	sc, err := LoadScenario("simtest/conformance.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, symbol, size, price, side, orderType, force, tradeSide, reduceOnly, stp, coid, newSize, newPrice string, advance int64) {
		vc := clock.NewVirtual(sc.Clock.Start)
		x, err := New(sc, Options{Clock: vc})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, key := range []string{"ow-key", "hg-key"} {
			a, _ := x.Account(key)
			ack, err := a.PlaceOrder(ctx, exchange.PlaceOrderRequest{
				Symbol: symbol, ProductType: exchange.USDTFutures, MarginMode: exchange.Crossed, MarginCoin: "USDT",
				Size: exchange.Num(size), Price: exchange.Num(price), Side: exchange.Side(side), TradeSide: exchange.TradeSide(tradeSide),
				OrderType: exchange.OrderType(orderType), Force: exchange.Force(force), ClientOID: coid,
				ReduceOnly: exchange.YesNo(reduceOnly), STPMode: exchange.STPMode(stp),
			})
			if err == nil && ack.OrderID != "" {
				_, _ = a.ModifyOrder(ctx, exchange.ModifyOrderRequest{Symbol: symbol, ProductType: exchange.USDTFutures, OrderID: ack.OrderID,
					NewClientOID: coid + "m", NewSize: exchange.Num(newSize), NewPrice: exchange.Num(newPrice)})
			}
			vc.Advance(time.Duration(advance%(7*86400)) * time.Second)
			_, _ = a.ClickBackhand(ctx, exchange.ClickBackhandRequest{Symbol: symbol, MarginCoin: "USDT", ProductType: exchange.USDTFutures, Side: exchange.Side(side), Size: exchange.Num(size), TradeSide: exchange.TradeSide(tradeSide)})
			if _, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures}); err != nil {
				t.Fatal(err)
			}
			ps, err := a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if !p.Total.MustDecimal().IsPositive() || p.Available.MustDecimal().IsNegative() {
					t.Fatalf("position %+v", p)
				}
			}
			x.mu.Lock()
			checkReserved(t, a)
			x.mu.Unlock()
			_, _ = a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: exchange.USDTFutures})
			_, _ = a.CancelAllOrders(ctx, exchange.CancelAllOrdersRequest{ProductType: exchange.USDTFutures})
		}
	})
}

// checkReserved: every pending opening order reserves its margin and the
// running total per coin equals the recount.
func checkReserved(t *testing.T, a *Account) {
	t.Helper()
	for _, coin := range []string{"USDT", "USDC", "BTC"} {
		sum := a.reserved[coin].Sub(a.reserved[coin])
		for _, o := range a.livePending() {
			if o.c.marginCoin != coin {
				continue
			}
			sum = sum.Add(o.reserved)
			if !o.closes() && o.price.IsPositive() {
				if want := o.c.value(o.remaining(), o.price).DivRound(o.leverage, 12); !want.Equal(o.reserved) {
					t.Fatalf("order %s reserves %s, want %s", o.id, o.reserved, want)
				}
			}
		}
		if !sum.Equal(a.reserved[coin]) {
			t.Fatalf("%s reserved %s, orders hold %s", coin, a.reserved[coin], sum)
		}
	}
}
