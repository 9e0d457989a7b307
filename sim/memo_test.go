package sim_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

// memoRig drives an exchange with random trading on a virtual clock and
// checks after every step that each memoised answer equals the answer
// computed afresh.
type memoRig struct {
	t     *testing.T
	x     *sim.Exchange
	vc    *clock.Virtual
	rng   *rand.Rand
	keys  []string
	pairs []string
	mode  map[string]exchange.PosMode // USDT-FUTURES mode per key
	coid  int
	ok    map[string]int // successful operations by kind
	// versions: AnswerVersion and the answer at the last check, by name;
	// kept and moved count how often a version stayed and changed.
	versions    map[string]versioned
	kept, moved int
	// promise is UnchangedUntil at the last check; promisesHeld counts the checks
	// (of versions, and of the mark across a catch-up) it promised.
	promise      promiseAt
	promisesHeld int
}

// promiseAt is what UnchangedUntil answered.
type promiseAt struct {
	set   bool
	mark  uint64
	until time.Time
}

// holds reports whether s promises that nothing changed by now: the time is
// before until and the mark is still the same.
func (s promiseAt) holds(now time.Time, mark uint64) bool {
	return s.set && (s.until.IsZero() || now.Before(s.until)) && mark == s.mark
}

// promiseNow asks UnchangedUntil now.
func (r *memoRig) promiseNow() promiseAt {
	mark, until := r.acct(r.keys[0]).UnchangedUntil(ctx)
	return promiseAt{set: true, mark: mark, until: until}
}

// versioned is an answer with the version it was asked under.
type versioned struct {
	v      [3]int64
	answer any
}

// TestMemoisedAnswersMatchFresh is the memo's property: whatever happened
// (orders placed, modified (also asynchronously), cancelled, filled as the
// path moves, batch operations, reversals, closes, position mode changes),
// a memoised answer is the one a fresh computation gives, and asking twice
// at one time returns the very same slices.
func TestMemoisedAnswersMatchFresh(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		sc    func() *sim.Scenario
		keys  []string
		pairs []string
	}{
		// Random walks with a 10 s step and three stock pairs.
		{"demo", sim.Demo, []string{"demo-key", "demo-hedge-key"}, []string{"TSLAUSDT", "NVDAUSDT", "AAPLUSDT"}},
		// Points: BTCUSDT held until 15:00, then moving every second.
		{"points", simtest.Scenario, []string{simtest.OneWayKey, simtest.HedgeKey}, []string{"TSLAUSDT"}},
		// Orders appear late and modifies apply late: answers move with time.
		{"delays", func() *sim.Scenario {
			sc := simtest.Scenario()
			sc.Faults.VisibilityDelay = 3 * time.Second
			sc.Settings.ModifyDelay = 2 * time.Second
			return sc
		}, []string{simtest.OneWayKey, simtest.HedgeKey}, []string{"TSLAUSDT"}},
		// Modifies apply late on the demo's walks: UnchangedUntil must end
		// when one falls due.
		{"modify-delay", func() *sim.Scenario {
			sc := sim.Demo()
			sc.Settings.ModifyDelay = 3 * time.Second
			return sc
		}, []string{"demo-key", "demo-hedge-key"}, []string{"TSLAUSDT", "NVDAUSDT", "AAPLUSDT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := tt.sc()
			simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
			x, vc := simRig.Exchange, simRig.Virtual
			r := &memoRig{
				t: t, x: x, vc: vc, rng: rand.New(rand.NewPCG(7, uint64(len(tt.name)))), keys: tt.keys, pairs: tt.pairs,
				mode: map[string]exchange.PosMode{}, ok: map[string]int{},
			}
			for _, k := range tt.keys {
				mode, err := r.acct(k).AccountPositionMode(ctx, exchange.USDTFutures, tt.pairs[0], "USDT")
				simtest.Must(t, err)
				r.mode[k] = mode
			}
			const steps = 400
			for i := range steps {
				r.advance()
				r.act(r.keys[r.rng.IntN(len(r.keys))])
				r.check(fmt.Sprintf("step %d at %s", i, vc.Now().Format(time.RFC3339)))
			}
			for _, kind := range []string{"place", "fill", "modify", "modify-presets", "cancel", "batch-place", "batch-cancel", "cancel-all", "close", "backhand", "set-mode"} {
				if r.ok[kind] == 0 {
					t.Errorf("no successful %s in %d steps: the test did not exercise it (%v)", kind, steps, r.ok)
				}
			}
			if tt.name != "delays" && r.promisesHeld == 0 {
				t.Errorf("UnchangedUntil never promised anything: its check did not run")
			}
			if r.kept == 0 || r.moved == 0 {
				t.Errorf("versions stayed %d times and moved %d times: both must happen for the check to mean anything", r.kept, r.moved)
			}
		})
	}
}

func (r *memoRig) acct(key string) *sim.Account {
	a, ok := r.x.Account(key)
	if !ok {
		r.t.Fatalf("no account %s", key)
	}
	return a
}

// advance moves the clock, and counts the fills matching made meanwhile.
// It also checks UnchangedUntil's promise about catching up: before until,
// moving the clock changes nothing (the mark stays).
func (r *memoRig) advance() {
	before := r.newestFills()
	promise := r.promiseNow()
	d := []time.Duration{0, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, 2 * time.Minute}[r.rng.IntN(7)]
	r.vc.Advance(d)
	if r.newestFills() != before {
		r.ok["fill"]++
	}
	now := r.vc.Now()
	if promise.holds(now, promise.mark) {
		r.promisesHeld++
		if m := r.acct(r.keys[0]).Mark(); m != promise.mark {
			r.t.Fatalf("at %s: UnchangedUntil promised no change until %s, but catching up moved the mark from %d to %d", now.Format(time.RFC3339), promise.until.Format(time.RFC3339Nano), promise.mark, m)
		}
	}
}

// newestFills names the newest fill of every account.
func (r *memoRig) newestFills() string {
	ids := ""
	for _, k := range r.keys {
		p, err := r.acct(k).Fills(ctx, exchange.FillsRequest{ProductType: exchange.USDTFutures, Limit: 1})
		simtest.Must(r.t, err)
		for _, f := range p.FillList {
			ids += f.TradeID + " "
		}
	}
	return ids
}

func (r *memoRig) nextCOID() string {
	r.coid++
	return fmt.Sprintf("memo-%d", r.coid)
}

// order is a random BTCUSDT or ETHUSDT order near the price: limits within
// ±0.2 % rest and fill as the path moves, or cross at once.
func (r *memoRig) order(key string) exchange.PlaceOrderRequest {
	sym, size := "BTCUSDT", "0.01"
	if r.rng.IntN(3) == 0 {
		sym, size = "ETHUSDT", "0.5"
	}
	tk, err := r.acct(key).Ticker(ctx, exchange.TickerRequest{Symbol: sym, ProductType: exchange.USDTFutures})
	simtest.Must(r.t, err)
	last := tk[0].LastPr.MustDecimal()
	side := []exchange.Side{exchange.Buy, exchange.Sell}[r.rng.IntN(2)]
	req := simtest.Order(sym, side, exchange.Limit, size, "")
	req.ClientOID = r.nextCOID()
	if r.rng.IntN(4) == 0 {
		req.OrderType = exchange.Market
	} else {
		off := decimal.NewFromInt(int64(r.rng.IntN(9) - 4)).Mul(decimal.New(5, -4)) // -0.2 % .. +0.2 %
		req.Price = exchange.NumOf(last.Mul(decimal.NewFromInt(1).Add(off)).Round(1))
	}
	if r.mode[key] == exchange.HedgeMode {
		req.TradeSide = exchange.Open
		if r.rng.IntN(3) == 0 {
			req.TradeSide = exchange.Close
		}
	} else if r.rng.IntN(5) == 0 {
		req.ReduceOnly = exchange.Yes
	}
	return req
}

// pendingOrder is a random pending order of key, or false.
func (r *memoRig) pendingOrder(key string) (exchange.PendingOrder, bool) {
	p, err := r.acct(key).PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
	simtest.Must(r.t, err)
	if len(p.EntrustedList) == 0 {
		return exchange.PendingOrder{}, false
	}
	return p.EntrustedList[r.rng.IntN(len(p.EntrustedList))], true
}

// act makes one random operation of key; refused operations are fine (the
// memo must survive them too), successes are counted.
func (r *memoRig) act(key string) {
	a := r.acct(key)
	count := func(kind string, err error) {
		if err == nil {
			r.ok[kind]++
		}
	}
	usdt := exchange.USDTFutures
	switch n := r.rng.IntN(20); {
	case n < 7:
		_, err := a.PlaceOrder(ctx, r.order(key))
		count("place", err)
	case n < 9:
		o, ok := r.pendingOrder(key)
		if !ok || o.OrderType != exchange.Limit {
			return
		}
		price := o.Price.MustDecimal().Add(decimal.NewFromInt(int64(r.rng.IntN(21) - 10)))
		_, err := a.ModifyOrder(ctx, exchange.ModifyOrderRequest{
			Symbol: o.Symbol, ProductType: usdt, OrderID: o.OrderID, NewClientOID: r.nextCOID(),
			NewSize: o.Size, NewPrice: exchange.NumOf(price),
		})
		count("modify", err)
	case n < 10:
		o, ok := r.pendingOrder(key)
		if !ok {
			return
		}
		tp := o.Price.MustDecimal().Mul(decimal.RequireFromString("1.05")).Round(1)
		_, err := a.ModifyOrder(ctx, exchange.ModifyOrderRequest{
			Symbol: o.Symbol, ProductType: usdt, OrderID: o.OrderID, NewClientOID: o.ClientOID,
			NewPresetStopSurplusPrice: exchange.NumOf(tp),
		})
		count("modify-presets", err)
	case n < 12:
		o, ok := r.pendingOrder(key)
		if !ok {
			return
		}
		_, err := a.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: o.Symbol, ProductType: usdt, OrderID: o.OrderID})
		count("cancel", err)
	case n < 14:
		o1, o2 := r.order(key), r.order(key)
		o2.Symbol = o1.Symbol
		req := exchange.BatchPlaceOrderRequest{Symbol: o1.Symbol, ProductType: usdt, MarginCoin: "USDT", MarginMode: exchange.Crossed}
		for _, o := range []exchange.PlaceOrderRequest{o1, o2} {
			req.OrderList = append(req.OrderList, exchange.BatchOrder{
				Size: o.Size, Price: o.Price, Side: o.Side, TradeSide: o.TradeSide, OrderType: o.OrderType, ClientOID: o.ClientOID, ReduceOnly: o.ReduceOnly,
			})
		}
		res, err := a.BatchPlaceOrder(ctx, req)
		if err == nil && len(res.SuccessList) > 0 {
			r.ok["batch-place"]++
		}
	case n < 15:
		o, ok := r.pendingOrder(key)
		if !ok {
			return
		}
		res, err := a.BatchCancelOrders(ctx, exchange.BatchCancelOrdersRequest{ProductType: usdt, Symbol: o.Symbol,
			OrderIDList: []exchange.OrderRef{{OrderID: o.OrderID}, {ClientOID: "no-such-order"}}})
		if err == nil && len(res.SuccessList) > 0 {
			r.ok["batch-cancel"]++
		}
	case n < 16:
		res, err := a.CancelAllOrders(ctx, exchange.CancelAllOrdersRequest{ProductType: usdt})
		if err == nil && len(res.SuccessList) > 0 {
			r.ok["cancel-all"]++
		}
	case n < 17:
		res, err := a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: usdt, Symbol: "BTCUSDT"})
		if err == nil && len(res.SuccessList) > 0 {
			r.ok["close"]++
		}
	case n < 18:
		req := exchange.ClickBackhandRequest{Symbol: "BTCUSDT", ProductType: usdt, MarginCoin: "USDT", ClientOID: r.nextCOID()}
		if r.mode[key] == exchange.HedgeMode {
			req.Side, req.TradeSide = []exchange.Side{exchange.Buy, exchange.Sell}[r.rng.IntN(2)], exchange.Open
		}
		_, err := a.ClickBackhand(ctx, req)
		count("backhand", err)
	case n < 19:
		// Flatten, then switch the position mode.
		_, err := a.CancelAllOrders(ctx, exchange.CancelAllOrdersRequest{ProductType: usdt})
		simtest.Must(r.t, err)
		_, _ = a.ClosePositions(ctx, exchange.ClosePositionsRequest{ProductType: usdt})
		want := exchange.HedgeMode
		if r.mode[key] == exchange.HedgeMode {
			want = exchange.OneWayMode
		}
		if _, err := a.SetPositionMode(ctx, exchange.SetPositionModeRequest{ProductType: usdt, PosMode: want}); err == nil {
			r.mode[key] = want
			r.ok["set-mode"]++
		}
	default:
		// Nothing: the clock alone moves.
	}
}

// check compares every memoised answer of every account, and the stock
// books and fills, with fresh ones.
// checkVersions checks AnswerVersion's promise: while the version of an
// operation stays the same, so does its answer.
func (r *memoRig) checkVersions(where string) {
	if r.versions == nil {
		r.versions = map[string]versioned{}
	}
	// Every version is the one of the last check while UnchangedUntil's
	// promise of then holds.
	promised := r.promise.holds(r.vc.Now(), r.acct(r.keys[0]).Mark())
	if promised {
		r.promisesHeld++
	}
	for _, key := range r.keys {
		a := r.acct(key)
		asks := []struct {
			op  exchange.Op
			pt  exchange.ProductType
			ask func() (any, error)
		}{
			{exchange.OpAllPositions, exchange.USDTFutures, func() (any, error) {
				return a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.USDTFutures})
			}},
			{exchange.OpAccounts, exchange.USDTFutures, func() (any, error) {
				return a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
			}},
			// Mostly without positions: their versions hold across prices.
			{exchange.OpAllPositions, exchange.COINFutures, func() (any, error) {
				return a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: exchange.COINFutures})
			}},
			{exchange.OpAccounts, exchange.COINFutures, func() (any, error) {
				return a.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.COINFutures})
			}},
			{exchange.OpOrdersPending, "", func() (any, error) {
				return a.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: exchange.USDTFutures})
			}},
			{exchange.OpStrategyOrders, "", func() (any, error) {
				return a.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: "usdt-futures"})
			}},
			{exchange.OpStockOrderBook, "", func() (any, error) {
				return a.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: r.pairs[0]})
			}},
		}
		for _, q := range asks {
			name := key + " " + string(q.op) + " " + string(q.pt)
			v, ok := a.AnswerVersion(ctx, q.op, q.pt)
			if !ok {
				r.t.Fatalf("%s: no version for %s", where, name)
			}
			answer, err := q.ask()
			simtest.Must(r.t, err)
			if prev, seen := r.versions[name]; seen && promised && prev.v != v {
				r.t.Fatalf("%s %s: UnchangedUntil promised no change until %s (mark %d), but the version moved from %v to %v", where, name, r.promise.until.Format(time.RFC3339Nano), r.promise.mark, prev.v, v)
			}
			if prev, seen := r.versions[name]; seen && prev.v == v {
				r.kept++
				if !reflect.DeepEqual(prev.answer, answer) {
					r.t.Fatalf("%s %s: the version stayed %v but the answer changed:\n%+v\nto\n%+v", where, name, v, prev.answer, answer)
				}
			} else if seen {
				r.moved++
			}
			r.versions[name] = versioned{v: v, answer: answer}
		}
	}
	r.promise = r.promiseNow()
}

func (r *memoRig) check(where string) {
	r.checkVersions(where)
	for _, key := range r.keys {
		a := r.acct(key)
		for _, pt := range []exchange.ProductType{exchange.USDTFutures, exchange.COINFutures, exchange.USDCFutures} {
			same(r, where+" "+key+" all-position "+string(pt), func() ([]exchange.Position, error) {
				return a.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
			}, sliceOf[exchange.Position])
			same(r, where+" "+key+" accounts "+string(pt), func() ([]exchange.Account, error) {
				return a.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
			}, sliceOf[exchange.Account])
		}
		for _, sym := range []string{"BTCUSDT", "ETHUSDT"} {
			same(r, where+" "+key+" single-position "+sym, func() ([]exchange.Position, error) {
				return a.SinglePosition(ctx, exchange.SinglePositionRequest{ProductType: exchange.USDTFutures, Symbol: sym, MarginCoin: "USDT"})
			}, sliceOf[exchange.Position])
		}
		for _, req := range []exchange.PendingOrdersRequest{
			{ProductType: exchange.USDTFutures},
			{ProductType: exchange.USDTFutures, Symbol: "BTCUSDT", Limit: 2},
			{ProductType: exchange.USDTFutures, Status: exchange.StatePartiallyFilled},
		} {
			same(r, where+" "+key+" orders-pending", func() (exchange.PendingOrdersPage, error) {
				return a.PendingOrders(ctx, req)
			}, func(p exchange.PendingOrdersPage) any { return p.EntrustedList })
		}
		for _, cat := range []exchange.Category{"usdt-futures", "spot"} {
			same(r, where+" "+key+" strategy-orders", func() ([]exchange.StrategyOrder, error) {
				return a.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: cat})
			}, sliceOf[exchange.StrategyOrder])
		}
	}
	// The market's memo against a market that never answered before.
	fresh, err := r.x.FreshMarket()
	simtest.Must(r.t, err)
	a := r.acct(r.keys[0])
	for _, sym := range r.pairs {
		got, err := a.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: sym})
		simtest.Must(r.t, err)
		want, err := fresh.StockOrderBook(sym, r.x.Now())
		simtest.Must(r.t, err)
		if !reflect.DeepEqual(got, want) {
			r.t.Fatalf("%s stock-orderbook %s: memoised %+v, fresh %+v", where, sym, got, want)
		}
		again, err := a.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: sym})
		simtest.Must(r.t, err)
		if !sameArray(got.Bids, again.Bids) || !sameArray(got.Asks, again.Asks) {
			r.t.Fatalf("%s stock-orderbook %s: asked twice, the slices differ", where, sym)
		}
		for _, limit := range []int{3, 100} {
			got, err := a.StockFills(ctx, exchange.StockFillsRequest{Symbol: sym, Limit: limit})
			simtest.Must(r.t, err)
			want, err := fresh.StockFills(sym, r.x.Now(), limit)
			simtest.Must(r.t, err)
			if !reflect.DeepEqual(got, want) {
				r.t.Fatalf("%s stock-fills %s limit %d: memoised %+v, fresh %+v", where, sym, limit, got, want)
			}
			again, err := a.StockFills(ctx, exchange.StockFillsRequest{Symbol: sym, Limit: limit})
			simtest.Must(r.t, err)
			if len(got) > 0 && !sameArray(got, again) {
				r.t.Fatalf("%s stock-fills %s limit %d: asked twice, the slices differ", where, sym, limit)
			}
		}
	}
}

// same asks with the memo, afresh, and with the memo again: the answers
// must be equal, and the two memoised ones the very same slice.
func same[T any](r *memoRig, what string, ask func() (T, error), slice func(T) any) {
	r.t.Helper()
	memo, err := ask()
	simtest.Must(r.t, err)
	r.x.SetMemo(false)
	fresh, err := ask()
	r.x.SetMemo(true)
	simtest.Must(r.t, err)
	if !reflect.DeepEqual(memo, fresh) {
		r.t.Fatalf("%s: memoised answer\n%+v\ndiffers from the fresh one\n%+v", what, memo, fresh)
	}
	again, err := ask()
	simtest.Must(r.t, err)
	if !sameArray(slice(memo), slice(again)) {
		r.t.Fatalf("%s: asked twice at one time, the answers are different slices", what)
	}
}

func sliceOf[T any](s []T) any { return s }

// sameArray reports whether two slices share their backing array and
// length (empty slices count as the same).
func sameArray(p, q any) bool {
	vp, vq := reflect.ValueOf(p), reflect.ValueOf(q)
	if vp.Len() != vq.Len() {
		return false
	}
	return vp.Len() == 0 || vp.Pointer() == vq.Pointer()
}
