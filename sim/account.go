package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// Account is one simulated account. It implements exchange.Venue; every
// method takes the exchange lock and first catches matching up with the
// clock. The queries that pollers repeat every tick are memoised (see
// memo.go) and return shared, read-only slices.
type Account struct {
	x    *Exchange
	uid  string
	auth struct {
		apiKey, secret, passphrase string
		perms                      []exchange.Permission
	}
	balance  map[string]decimal.Decimal // wallet balance per coin
	reserved map[string]decimal.Decimal // margin held by open orders per coin (see reserve)
	mode     map[exchange.ProductType]exchange.PosMode
	leverage map[string]decimal.Decimal

	orders    []*order // every order, creation order
	pending   []*order // live and partially filled, creation order; read through livePending
	stale     int      // orders in pending that became final
	byID      map[string]*order
	byCOID    map[string]*order
	positions []*position
	fills     []*fill
	spot      []exchange.SpotRecord      // ascending id
	history   []exchange.HistoryPosition // closed positions, ascending positionId
	strategy  []exchange.StrategyOrder

	memo accountMemo // the last answers of the polled queries
}

var _ exchange.Venue = (*Account)(nil)

// UID returns the account's user id.
func (a *Account) UID() string { return a.uid }

func (x *Exchange) newAccount(s *AccountSpec) (*Account, error) {
	a := &Account{
		x: x, uid: s.UID, balance: map[string]decimal.Decimal{}, reserved: map[string]decimal.Decimal{}, mode: map[exchange.ProductType]exchange.PosMode{},
		leverage: map[string]decimal.Decimal{}, byID: map[string]*order{}, byCOID: map[string]*order{},
	}
	a.auth.apiKey, a.auth.secret, a.auth.passphrase = s.APIKey, s.Secret, s.Passphrase
	a.auth.perms = slices.Clone(s.Permissions)
	if len(a.auth.perms) == 0 {
		a.auth.perms = slices.Clone(allPermissions)
	}
	for coin, v := range s.Balances {
		a.balance[coin] = v
	}
	for _, pt := range exchange.ProductTypes() {
		a.mode[pt] = exchange.OneWayMode
		if m, ok := s.PositionMode[pt]; ok {
			a.mode[pt] = m
		}
	}
	for sym, l := range s.Leverage {
		a.leverage[sym] = l
	}
	for i, ps := range s.Positions {
		c, err := x.contract("", ps.ProductType, ps.Symbol)
		if err != nil {
			return nil, fmt.Errorf("positions[%d]: %w", i, err)
		}
		long := ps.HoldSide == exchange.Long
		if a.mode[c.productType] == exchange.OneWayMode && a.position(c, !long) != nil {
			return nil, fmt.Errorf("positions[%d]: one-way mode holds one direction per symbol", i)
		}
		p := a.openPosition(c, long)
		p.size, p.avg = ps.Size, ps.OpenPrice
		if ps.MarginMode != "" {
			p.marginMode = ps.MarginMode
		}
	}
	for i, os := range s.Orders {
		req := exchange.PlaceOrderRequest{
			Symbol: os.Symbol, ProductType: os.ProductType, MarginMode: os.MarginMode, Side: os.Side, TradeSide: os.TradeSide,
			OrderType: os.OrderType, Price: os.Price, Size: os.Size, Force: os.Force, ClientOID: os.ClientOID, ReduceOnly: os.ReduceOnly,
		}
		if req.MarginMode == "" {
			req.MarginMode = exchange.Crossed
		}
		if req.OrderType == "" {
			req.OrderType = exchange.Limit
		}
		if c, ok := x.contractBy[contractKey(os.ProductType, os.Symbol)]; ok {
			req.MarginCoin = c.marginCoin
		}
		if _, err := a.place(exchange.OpPlaceOrder, req, exchange.OSNormal); err != nil {
			return nil, fmt.Errorf("orders[%d]: %w", i, err)
		}
	}
	if err := a.seedHistory(s.PositionHistory); err != nil {
		return nil, err
	}
	for _, r := range s.SpotRecords {
		a.spot = append(a.spot, r.SpotRecord)
	}
	slices.SortStableFunc(a.spot, func(p, q exchange.SpotRecord) int { return cmp.Compare(p.TS.Int(), q.TS.Int()) })
	for i := range a.spot {
		if a.spot[i].ID == "" {
			a.spot[i].ID = strconv.FormatUint(uint64(1_300_000_000_000_000_000+i+1), 10)
		}
	}
	slices.SortStableFunc(a.spot, func(p, q exchange.SpotRecord) int { return compareIDs(p.ID, q.ID) })
	for _, so := range append(slices.Clone(x.sc.StrategyOrders), s.StrategyOrders...) {
		if so.Account == "" || so.Account == a.uid {
			a.strategy = append(a.strategy, so.StrategyOrder)
		}
	}
	return a, nil
}

// compareIDs orders decimal id strings numerically (shorter is smaller).
func compareIDs(p, q string) int {
	return cmp.Or(cmp.Compare(len(p), len(q)), cmp.Compare(p, q))
}

// position is an open position. In one-way mode an account holds at most one
// direction per contract.
type position struct {
	c         *contract
	long      bool
	size, avg decimal.Decimal
	achieved  decimal.Decimal // realised P&L while open
	fees      decimal.Decimal // fees paid while open (break-even price)
	// What the position's history record (position_history.go) sums:
	// the fees of opening and of closing fills, the funding received
	// (negative: paid), the size opened and closed, and the closed size
	// times its prices (the close average).
	openFee, closeFee, funding decimal.Decimal
	opened, closed, closeQuote decimal.Decimal
	marginMode                 exchange.MarginMode
	cTime                      time.Time
	uTime                      time.Time

	parts positionParts // see Account.parts
}

func (a *Account) position(c *contract, long bool) *position {
	for _, p := range a.positions {
		if p.c == c && p.long == long {
			return p
		}
	}
	return nil
}

func (a *Account) openPosition(c *contract, long bool) *position {
	if p := a.position(c, long); p != nil {
		return p
	}
	p := &position{c: c, long: long, marginMode: exchange.Crossed, cTime: a.x.now, uTime: a.x.now}
	a.positions = append(a.positions, p)
	slices.SortStableFunc(a.positions, func(p, q *position) int {
		return cmp.Or(cmp.Compare(productRank(p.c.productType), productRank(q.c.productType)),
			cmp.Compare(p.c.spec.Symbol, q.c.spec.Symbol), cmp.Compare(boolRank(q.long), boolRank(p.long)))
	})
	return p
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (a *Account) dropPosition(p *position) {
	a.positions = slices.DeleteFunc(a.positions, func(q *position) bool { return q == p })
}

// size of the position of c in direction long, zero when none.
func (a *Account) posSize(c *contract, long bool) decimal.Decimal {
	if p := a.position(c, long); p != nil {
		return p.size
	}
	return decimal.Zero
}

// held is the remaining size of a's pending closing orders on the position
// of c in direction long, not counting except.
func (a *Account) held(c *contract, long bool, except *order) decimal.Decimal {
	sum := decimal.Zero
	for _, o := range a.livePending() {
		if o != except && o.c == c && o.closes() && o.buys() != long {
			sum = sum.Add(o.remaining())
		}
	}
	return sum
}

func (a *Account) heldOrders(c *contract, long bool) []*order {
	var out []*order
	for _, o := range a.livePending() {
		if o.c == c && o.closes() && o.buys() != long {
			out = append(out, o)
		}
	}
	return out
}

// margin of p in its margin coin at its average price.
func (p *position) margin(lev decimal.Decimal) decimal.Decimal {
	return p.c.value(p.size, p.avg).DivRound(lev, 12)
}

// unrealised P&L of p at mark.
func (p *position) unrealised(mark decimal.Decimal) decimal.Decimal {
	return unrealisedOf(p.c.inverse, p.long, p.size, p.avg, mark)
}

// liquidationIn is p's liquidation price in N: isolated long
// avg*(1 - 1/lev + mmr), short avg*(1 + 1/lev - mmr); crossed positions
// also draw on the free balance of the margin coin (see
// crossedLiquidation); never below zero. Documented in docs/scenarios.md
// as an approximation: the simulator does not liquidate. pp are p's parts
// now (leverage and margin); the isolated price, which does not depend on
// free, is kept in them.
func liquidationIn[N number[N], K numberKind[N]](x *Exchange, p *position, pp *positionParts, free N) N {
	var k K
	if p.size.IsZero() {
		var zero N
		return zero
	}
	if p.marginMode == exchange.Isolated || free.IsNegative() {
		return k.of(p.isolatedLiquidation(pp, x.set.MaintenanceMarginRate))
	}
	size, avg, margin := k.position(p, pp)
	return crossedLiquidation(p.c.inverse, p.long, avg, size, margin, free, k.of(x.keepRate), p.c.pricePlace)
}

// isolatedLiquidation is p's isolated liquidation price, computed once per
// state (kept in pp).
func (p *position) isolatedLiquidation(pp *positionParts, mmr decimal.Decimal) decimal.Decimal {
	if !pp.isolatedSet {
		f := one.Div(pp.lev).Sub(mmr)
		if p.long {
			pp.isolated = roundLiquidation(p.avg.Mul(one.Sub(f)), p.c.pricePlace)
		} else {
			pp.isolated = roundLiquidation(p.avg.Mul(one.Add(f)), p.c.pricePlace)
		}
		pp.isolatedSet = true
	}
	return pp.isolated
}

// funds is the state of coin now, for the checks of new orders.
func (a *Account) funds(coin string) funds {
	f := funds{balance: a.balance[coin]}
	for _, p := range a.positions {
		if p.c.marginCoin != coin {
			continue
		}
		f.posMargin = f.posMargin.Add(p.margin(a.leverageOf(p.c.spec.Symbol)))
		if mark, ok := a.x.markPrice(p.c); ok {
			f.unrealised = f.unrealised.Add(p.unrealised(mark))
		}
	}
	f.orderMargin = a.reserved[coin]
	f.avail = f.available()
	return f
}

// answerFunds is funds in N for the answers of the queries: the margins
// come from the positions' parts.
func answerFunds[N number[N], K numberKind[N]](a *Account, coin string) fundsIn[N] {
	var k K
	f := fundsIn[N]{balance: k.of(a.balance[coin])}
	for _, p := range a.positions {
		if p.c.marginCoin != coin {
			continue
		}
		size, avg, margin := k.position(p, a.parts(p))
		f.posMargin = f.posMargin.Add(margin)
		if mark, ok := k.price(a.x, p.c); ok {
			f.unrealised = f.unrealised.Add(unrealisedOf(p.c.inverse, p.long, size, avg, mark))
		}
	}
	f.orderMargin = k.of(a.reserved[coin])
	f.avail = f.available()
	return f
}

// reserve brings the margin o holds as an open order up to date: the value
// of its remaining size at its price over its leverage while it is a pending
// opening limit order, else nothing. The total per coin is kept so that a
// new order's balance check does not walk every pending order.
func (a *Account) reserve(o *order) {
	want := decimal.Zero
	if o.pending() && !o.closes() && o.price.IsPositive() {
		want = o.c.value(o.remaining(), o.price).DivRound(o.leverage, 12)
	}
	if want.Equal(o.reserved) {
		return
	}
	coin := o.c.marginCoin
	a.reserved[coin] = a.reserved[coin].Add(want).Sub(o.reserved)
	o.reserved = want
}
