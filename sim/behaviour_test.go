package sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/market"
	"github.com/tickrules/tickrules/sim/simtest"
)

// build returns a fresh exchange on a virtual clock from the suite's
// scenario after edit changed it.
func build(t *testing.T, edit func(sc *sim.Scenario)) (*sim.Exchange, *clock.Virtual) {
	t.Helper()
	sc := simtest.Scenario()
	if edit != nil {
		edit(sc)
	}
	r := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	return r.Exchange, r.Virtual
}

func account(t *testing.T, x *sim.Exchange, key string) *sim.Account {
	t.Helper()
	a, ok := x.Account(key)
	if !ok {
		t.Fatalf("no account %s", key)
	}
	return a
}

var ctx = context.Background()

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestVisibilityDelay(t *testing.T) {
	t.Parallel()
	x, vc := build(t, func(sc *sim.Scenario) { sc.Faults.VisibilityDelay = 2 * time.Second })
	a := account(t, x, simtest.OneWayKey)
	ack, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49000"))
	simtest.Must(t, err)
	detail := exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID}
	_, err = a.OrderDetail(ctx, detail)
	simtest.WantCode(t, err, exchange.CodeOrderNotExist2)
	p, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
	simtest.Must(t, err)
	if len(p.EntrustedList) != 0 {
		t.Fatalf("pending shows the order before the visibility delay")
	}
	vc.Advance(2 * time.Second)
	_, err = a.OrderDetail(ctx, detail)
	simtest.Must(t, err)
}

func TestModifyDelay(t *testing.T) {
	t.Parallel()
	x, vc := build(t, func(sc *sim.Scenario) { sc.Settings.ModifyDelay = 5 * time.Second })
	a := account(t, x, simtest.OneWayKey)
	ack, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49000"))
	simtest.Must(t, err)
	_, err = a.ModifyOrder(ctx, exchange.ModifyOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID, NewClientOID: "later", NewSize: "0.02", NewPrice: "48000"})
	simtest.Must(t, err)
	byNew := exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, ClientOID: "later"}
	_, err = a.OrderDetail(ctx, byNew)
	simtest.WantCode(t, err, exchange.CodeOrderNotExist2)
	req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "47000")
	req.ClientOID = "later"
	_, err = a.PlaceOrder(ctx, req)
	simtest.WantCode(t, err, sim.CodeDuplicateClientOID)
	vc.Advance(5 * time.Second)
	d, err := a.OrderDetail(ctx, byNew)
	simtest.Must(t, err)
	if d.State != exchange.StateLive || d.Size != "0.02" || d.OrderID == ack.OrderID {
		t.Fatalf("new order after the delay = %+v", d)
	}
}

func TestOneWayTradeSideSetting(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		setting string
		code    string
	}{{sim.TradeSideReject, exchange.CodeTradeSideOneWay}, {sim.TradeSideIgnore, ""}} {
		t.Run(tt.setting, func(t *testing.T) {
			x, _ := build(t, func(sc *sim.Scenario) { sc.Settings.OneWayTradeSide = tt.setting })
			a := account(t, x, simtest.OneWayKey)
			req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49000")
			req.TradeSide = exchange.Open
			ack, err := a.PlaceOrder(ctx, req)
			if tt.code != "" {
				simtest.WantCode(t, err, tt.code)
				return
			}
			simtest.Must(t, err)
			d, err := a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
			simtest.Must(t, err)
			if d.TradeSide != exchange.BuySingle {
				t.Fatalf("tradeSide = %s, want buy_single", d.TradeSide)
			}
		})
	}
}

func TestDuplicateClientOID(t *testing.T) {
	t.Parallel()
	x, _ := build(t, nil)
	a := account(t, x, simtest.OneWayKey)
	req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49000")
	req.ClientOID = "same"
	_, err := a.PlaceOrder(ctx, req)
	simtest.Must(t, err)
	_, err = a.PlaceOrder(ctx, req)
	simtest.WantCode(t, err, sim.CodeDuplicateClientOID)
}

func TestCoinMargined(t *testing.T) {
	t.Parallel()
	x, _ := build(t, nil)
	a := account(t, x, simtest.OneWayKey)
	req := exchange.PlaceOrderRequest{Symbol: "BTCUSD", ProductType: exchange.COINFutures, MarginMode: exchange.Crossed, MarginCoin: "BTC",
		Size: "0.01", Side: exchange.Buy, OrderType: exchange.Market}
	_, err := a.PlaceOrder(ctx, req)
	simtest.Must(t, err)
	acc, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.COINFutures})
	simtest.Must(t, err)
	if len(acc) != 1 || acc[0].MarginCoin != "BTC" {
		t.Fatalf("accounts = %+v", acc)
	}
	// Taker fee in BTC: 0.01 BTC * 0.0006 (the default taker rate).
	if eq := acc[0].AccountEquity.MustDecimal(); !eq.LessThan(dec("10")) || eq.LessThan(dec("9.9999")) {
		t.Fatalf("BTC equity after a coin-margined buy = %s", eq)
	}
	req.MarginCoin = "USDT"
	_, err = a.PlaceOrder(ctx, req)
	simtest.WantCode(t, err, exchange.CodeParamVerify)
}

// TestCatchUpWidensTheStep: a clock jump of more steps than the bound still
// fills a resting order that the path crosses.
func TestCatchUpWidensTheStep(t *testing.T) {
	t.Parallel()
	x, vc := build(t, func(sc *sim.Scenario) { sc.Settings.MaxCatchUpSteps = 10 })
	a := account(t, x, simtest.OneWayKey)
	ack, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49500"))
	simtest.Must(t, err)
	vc.Advance(2 * time.Hour)
	d, err := a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
	simtest.Must(t, err)
	if d.State != exchange.StateFilled {
		t.Fatalf("state = %s, want filled", d.State)
	}
	if got := x.Now(); !got.Equal(vc.Now()) {
		t.Fatalf("exchange time %s, clock %s", got, vc.Now())
	}
}

func TestPublicReader(t *testing.T) {
	t.Parallel()
	x, _ := build(t, nil)
	pub := x.Public()
	cs, err := pub.Contracts(ctx, exchange.ContractsRequest{ProductType: exchange.USDTFutures, Symbol: "ETHUSDT"})
	simtest.Must(t, err)
	if len(cs) != 1 || cs[0].PriceEndStep != "5" {
		t.Fatalf("contracts = %+v", cs)
	}
	info, err := pub.StockInfo(ctx, exchange.StockInfoRequest{})
	simtest.Must(t, err)
	if len(info) != 1 || info[0].Code != "TSLA" {
		t.Fatalf("stock-info = %+v", info)
	}
	_, err = pub.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: "1"})
	simtest.WantCode(t, err, exchange.CodeKeyMissing)
	_, err = pub.Contracts(ctx, exchange.ContractsRequest{ProductType: exchange.USDTFutures, Symbol: "NOPE"})
	simtest.WantCode(t, err, exchange.CodeSymbolInvalid)
}

func TestAuth(t *testing.T) {
	t.Parallel()
	x, _ := build(t, nil)
	auth, ok := x.Auth(simtest.HedgeKey)
	if !ok || auth.UID != "7000000002" || auth.Secret != "hg-secret" || auth.Passphrase != "hg-pass" || len(auth.Perms) == 0 {
		t.Fatalf("auth = %+v, %v", auth.UID, ok)
	}
	if _, ok := x.Auth("nope"); ok {
		t.Fatal("unknown key authenticated")
	}
}

func TestDemoExchange(t *testing.T) {
	t.Parallel()
	sc := sim.Demo()
	x := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 30 * time.Minute}).Exchange // 09:30 EDT, regular session
	a := account(t, x, "demo-key")
	for _, pt := range exchange.ProductTypes() {
		acc, err := a.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		simtest.Must(t, err)
		if len(acc) != 1 || acc[0].PosMode != "" {
			t.Fatalf("%s accounts = %+v", pt, acc)
		}
	}
	if m, err := a.AccountPositionMode(ctx, exchange.USDTFutures, "BTCUSDT", "USDT"); err != nil || m != exchange.OneWayMode {
		t.Fatalf("position mode %q, %v; want one_way_mode", m, err)
	}
	for _, sym := range []string{"BTCUSDT", "TSLAUSDT", "AAPLUSDT"} {
		tk, err := a.Ticker(ctx, exchange.TickerRequest{Symbol: sym, ProductType: exchange.USDTFutures})
		simtest.Must(t, err)
		req := simtest.Order(sym, exchange.Buy, exchange.Limit, "1", "")
		req.Price = tk[0].BidPr
		if sym == "BTCUSDT" {
			req.Size = "0.01"
		}
		_, err = a.PlaceOrder(ctx, req)
		simtest.Must(t, err)
	}
	h := account(t, x, "demo-hedge-key")
	req := simtest.Order("ETHUSDT", exchange.Sell, exchange.Market, "1", "")
	req.TradeSide = exchange.Open
	_, err := h.PlaceOrder(ctx, req)
	simtest.Must(t, err)
	for _, typ := range exchange.StrategyTypes() {
		found := false
		for _, cat := range []exchange.Category{exchange.CategorySpot, exchange.CategoryUSDTFutures, exchange.CategoryUSDCFutures} {
			so, err := a.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: cat, Type: typ})
			simtest.Must(t, err)
			found = found || len(so) > 0
		}
		if !found {
			t.Errorf("demo has no %s strategy order", typ)
		}
	}
	end := sc.Clock.Start
	recs, err := a.SpotRecords(ctx, exchange.SpotRecordRequest{StartTime: exchange.MillisOf(end.Add(-30 * 24 * time.Hour)), EndTime: exchange.MillisOf(end)})
	simtest.Must(t, err)
	if len(recs) < 30 {
		t.Errorf("demo has %d spot records in the month before its start", len(recs))
	}
	book, err := a.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: "TSLAUSDT"})
	simtest.Must(t, err)
	if len(book.Asks) == 0 || len(book.Asks) > 40 {
		t.Errorf("stock book has %d asks", len(book.Asks))
	}
}

// TestConcurrentAccounts exercises the lock under -race: two accounts place
// and cancel at once while a third goroutine moves the clock.
func TestConcurrentAccounts(t *testing.T) {
	t.Parallel()
	x, vc := build(t, nil)
	var wg sync.WaitGroup
	for _, key := range []string{simtest.OneWayKey, simtest.HedgeKey} {
		a := account(t, x, key)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				req := simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", fmt.Sprintf("%d", 45000+i))
				if key == simtest.HedgeKey {
					req.TradeSide = exchange.Open
				}
				ack, err := a.PlaceOrder(ctx, req)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := a.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 50 {
			vc.Advance(time.Second)
		}
	}()
	wg.Wait()
}

// TestZeroSettingsGetDefaults: a scenario built in Go, without the loader's
// defaults, still steps (a zero step or bound would never finish).
func TestZeroSettingsGetDefaults(t *testing.T) {
	t.Parallel()
	x, vc := build(t, func(sc *sim.Scenario) {
		sc.Settings = sim.Settings{}
		sc.Clock.Step = 0
	})
	a := account(t, x, simtest.OneWayKey)
	ack, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49500"))
	simtest.Must(t, err)
	vc.Advance(2 * time.Hour)
	d, err := a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
	simtest.Must(t, err)
	if d.State != exchange.StateFilled || d.Leverage != "10" {
		t.Fatalf("state %s leverage %s, want filled at the default leverage 10", d.State, d.Leverage)
	}
}

// TestRefusedModifyKeepsTheOrder: a modify whose new order would break a
// rule is refused and the old order stays live, listed once.
func TestRefusedModifyKeepsTheOrder(t *testing.T) {
	t.Parallel()
	x, _ := build(t, nil)
	a := account(t, x, simtest.OneWayKey)
	ack, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "49000"))
	simtest.Must(t, err)
	for _, tt := range []struct {
		name, size, price, code string
	}{
		{"below minimum value", "0.0001", "49000", exchange.CodeValueBelowMin},
		{"balance", "99", "49000", exchange.CodeBalanceNotEnough},
		{"price precision", "0.02", "48000.05", exchange.CodePrecisionPrice},
		{"unchanged", "0.01", "49000", exchange.CodeModifyUnchanged},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.ModifyOrder(ctx, exchange.ModifyOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID,
				NewClientOID: "n-" + tt.code, NewSize: exchange.Num(tt.size), NewPrice: exchange.Num(tt.price)})
			simtest.WantCode(t, err, tt.code)
			p, err := a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
			simtest.Must(t, err)
			if len(p.EntrustedList) != 1 || p.EntrustedList[0].OrderID != ack.OrderID || p.EntrustedList[0].Status != exchange.StateLive {
				t.Fatalf("pending after a refused modify = %+v", p.EntrustedList)
			}
		})
	}
	// The order still fills as a resting order.
	_, err = a.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
	simtest.Must(t, err)
}

func TestCancelAllReceiveWindow(t *testing.T) {
	t.Parallel()
	x, vc := build(t, nil)
	a := account(t, x, simtest.OneWayKey)
	sent := exchange.MillisOf(vc.Now())
	vc.Advance(3 * time.Second)
	_, err := a.CancelAllOrders(ctx, exchange.CancelAllOrdersRequest{ProductType: exchange.USDTFutures, RequestTime: sent, ReceiveWindow: "2000"})
	simtest.WantCode(t, err, exchange.CodeTimestampExpired)
	_, err = a.CancelAllOrders(ctx, exchange.CancelAllOrdersRequest{ProductType: exchange.USDTFutures, RequestTime: sent, ReceiveWindow: "5000"})
	simtest.Must(t, err)
}

// TestOrderHistoryKeeps90Days: orders older than 90 days leave the history.
func TestOrderHistoryKeeps90Days(t *testing.T) {
	t.Parallel()
	x, vc := build(t, nil)
	a := account(t, x, simtest.OneWayKey)
	ack, err := a.PlaceOrder(ctx, simtest.Order("BTCUSDT", exchange.Buy, exchange.Limit, "0.01", "40000"))
	simtest.Must(t, err)
	_, err = a.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
	simtest.Must(t, err)
	count := func() int {
		h, err := a.OrderHistory(ctx, exchange.OrderHistoryRequest{ProductType: exchange.USDTFutures})
		simtest.Must(t, err)
		return len(h.EntrustedList)
	}
	vc.Advance(89 * 24 * time.Hour)
	if n := count(); n != 1 {
		t.Fatalf("history after 89 days has %d orders, want 1", n)
	}
	vc.Advance(2 * 24 * time.Hour)
	if n := count(); n != 0 {
		t.Fatalf("history after 91 days has %d orders, want 0", n)
	}
	_, err = a.OrderHistory(ctx, exchange.OrderHistoryRequest{ProductType: exchange.USDTFutures, StartTime: exchange.MillisOf(vc.Now().Add(-91 * 24 * time.Hour))})
	simtest.WantCode(t, err, exchange.CodeOnly90Days)
}

func TestNewChecksAScenarioBuiltInGo(t *testing.T) {
	t.Parallel()
	sc := simtest.Scenario()
	sc.Contracts = append(sc.Contracts, sc.Contracts[0])
	_, err := sim.New(sc, sim.Options{Clock: clock.NewVirtual(sc.Clock.Start)})
	if !errors.Is(err, sim.ErrScenario) || !strings.Contains(err.Error(), "contracts[4]: contract USDT-FUTURES/BTCUSDT is listed twice") {
		t.Fatalf("error = %v", err)
	}
}

// TestClosedStockFutureDoesNotMatch: a resting order on a stock future does
// not fill while its market is closed, even when the path crosses it; it
// fills at the first step after the Monday 00:00 UTC-4 open.
func TestClosedStockFutureDoesNotMatch(t *testing.T) {
	t.Parallel()
	x, vc := build(t, func(sc *sim.Scenario) {
		sc.Prices["TSLAUSDT"] = market.PathSpec{Points: []market.Point{
			{At: time.Date(2026, 3, 13, 23, 0, 0, 0, time.UTC), Price: dec("400")},
			{At: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC), Price: dec("380")}, // Saturday: closed
		}}
	})
	a := account(t, x, simtest.OneWayKey)
	ack, err := a.PlaceOrder(ctx, simtest.Order("TSLAUSDT", exchange.Buy, exchange.Limit, "1", "390"))
	simtest.Must(t, err)
	state := func() exchange.OrderState {
		d, err := a.OrderDetail(ctx, exchange.OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures, OrderID: ack.OrderID})
		simtest.Must(t, err)
		return d.State
	}
	vc.Set(time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)) // Sunday
	if s := state(); s != exchange.StateLive {
		t.Fatalf("state on Sunday = %s, want live (market closed)", s)
	}
	vc.Set(time.Date(2026, 3, 16, 4, 0, 1, 0, time.UTC)) // Monday 00:00:01 UTC-4
	if s := state(); s != exchange.StateFilled {
		t.Fatalf("state after the Monday open = %s, want filled", s)
	}
}
