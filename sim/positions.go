package sim

import (
	"context"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

// positionRecord is p's record in N; f are the funds of its margin coin
// now. Only the mark, the unrealised P&L and the liquidation price are
// computed here: the rest holds while the state does (see positionParts).
// false when a number of kind N did not fit (see fixed).
func positionRecord[N number[N], K numberKind[N]](a *Account, p *position, f fundsIn[N]) (exchange.Position, bool) {
	var k K
	pp := a.parts(p)
	rec := pp.rec
	rec.MarginMode, rec.PosMode = p.marginMode, a.mode[p.c.productType]
	mark, _ := k.price(a.x, p.c) // zero without a price, as is the unrealised P&L then
	size, avg, _ := k.position(p, pp)
	u := unrealisedOf(p.c.inverse, p.long, size, avg, mark)
	liq := liquidationIn[N, K](a.x, p, pp, f.avail)
	if !k.ok(mark) || !k.ok(u) || !k.ok(liq) || !k.ok(f.avail) {
		return rec, false
	}
	rec.MarkPrice = k.num(mark)
	rec.UnrealizedPL = k.rounded(u, 8)
	rec.LiquidationPrice = k.num(liq)
	return rec, true
}

// positionParts are what a position's record and its coin's funds need
// that does not depend on the price: computed once per state revision, so
// that a price step recomputes only what moves with the price. Every change
// of a position (or of the orders that hold it) bumps the revision before
// it is made (see changed). Only the answers of the position and account
// queries use the parts: they run after every change of their call (the
// catch-up) and change nothing, so parts kept at a revision were computed
// from the state of that revision. A Trader method might change the state
// after reading it without a new revision: it must not use them.
type positionParts struct {
	rev    uint64
	ok     bool
	lev    decimal.Decimal
	margin decimal.Decimal // p.margin(lev)
	// fixed are the position's size, average price and margin in fixed.
	fixed struct{ size, avg, margin fixed }
	// isolated is the isolated liquidation price, once asked for.
	isolated    decimal.Decimal
	isolatedSet bool
	// rec is the record without the fields positionRecord fills.
	rec exchange.Position
}

// parts returns p's parts now: the kept ones while the state revision is
// the same, new ones otherwise, and always new ones while memoising is off
// (so that the memo's tests compare them with a fresh computation).
func (a *Account) parts(p *position) *positionParts {
	if pp := &p.parts; pp.ok && pp.rev == a.x.rev.Load() && !a.x.noMemo {
		return pp
	}
	lev := a.leverageOf(p.c.spec.Symbol)
	locked := decimal.Min(a.held(p.c, p.long, nil), p.size)
	breakEven := p.avg
	if p.size.IsPositive() && !p.c.inverse {
		perUnit := p.fees.DivRound(p.size, 12)
		if p.long {
			breakEven = p.avg.Add(perUnit)
		} else {
			breakEven = p.avg.Sub(perUnit)
		}
	}
	margin := p.margin(lev)
	pp := positionParts{rev: a.x.rev.Load(), ok: true, lev: lev, margin: margin, rec: exchange.Position{
		Symbol: p.c.spec.Symbol, MarginCoin: p.c.marginCoin, HoldSide: holdSide(p.long),
		Total: num(p.size), Available: num(p.size.Sub(locked)), Locked: num(locked),
		OpenPriceAvg: roundedNum(p.avg, p.c.pricePlace+4),
		Leverage:     num(lev), AchievedProfits: roundedNum(p.achieved, 8),
		MarginSize: roundedNum(margin, 8), BreakEvenPrice: roundedNum(breakEven, p.c.pricePlace+4),
		CTime: exchange.MillisOf(p.cTime), UTime: exchange.MillisOf(p.uTime),
	}}
	pp.fixed.size, pp.fixed.avg, pp.fixed.margin = fixedOf(p.size), fixedOf(p.avg), fixedOf(margin)
	if a.x.noMemo {
		return &pp
	}
	p.parts = pp
	return &p.parts
}

// AllPositions lists the open positions of a product type (GET all-position).
// The answer is memoised (see memo.go): its slice is shared and read-only.
func (a *Account) AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpAllPositions, req, a.x.now); err != nil {
		return nil, err
	}
	return memoised(a.x, &a.memo.allPositions, req, a.x.stateKey(a.pricesMove(exchange.OpAllPositions, req.ProductType), false), func() ([]exchange.Position, error) {
		return a.positionRecords(func(p *position) bool {
			return p.c.productType == req.ProductType && (req.MarginCoin == "" || p.c.marginCoin == req.MarginCoin)
		}), nil
	})
}

// positionRecords are the records of the positions that match: computed
// in fixed, and again in decimal when a number does not fit in fixed (or
// when tests turn fixed off).
func (a *Account) positionRecords(match func(*position) bool) []exchange.Position {
	if !a.x.noFixed {
		if out, ok := positionRecordsIn[fixed, fixedKind](a, match); ok {
			return out
		}
	}
	out, _ := positionRecordsIn[decimal.Decimal, decimalKind](a, match)
	return out
}

// positionRecordsIn are the records of the positions that match, in N;
// false when a number did not fit.
func positionRecordsIn[N number[N], K numberKind[N]](a *Account, match func(*position) bool) ([]exchange.Position, bool) {
	var fc coinFunds[N, K]
	n := 0
	for _, p := range a.positions {
		if match(p) {
			n++
		}
	}
	out := make([]exchange.Position, 0, n)
	for _, p := range a.positions {
		if !match(p) {
			continue
		}
		rec, ok := positionRecord[N, K](a, p, fc.of(a, p.c.marginCoin))
		if !ok {
			return nil, false
		}
		out = append(out, rec)
	}
	return out, true
}

// coinFunds are the funds of the margin coins one answer needs, each
// computed once: the first maxAnswerCoins of them are kept in arrays (an
// answer rarely spans more coins), so that the cache allocates nothing;
// the funds of further coins are computed each time they are asked for.
type coinFunds[N number[N], K numberKind[N]] struct {
	n     int
	coins [maxAnswerCoins]string
	funds [maxAnswerCoins]fundsIn[N]
}

// maxAnswerCoins is how many margin coins a coinFunds keeps.
const maxAnswerCoins = 4

func (fc *coinFunds[N, K]) of(a *Account, coin string) fundsIn[N] {
	for i, c := range fc.coins[:fc.n] {
		if c == coin {
			return fc.funds[i]
		}
	}
	f := answerFunds[N, K](a, coin)
	if fc.n < maxAnswerCoins {
		fc.coins[fc.n], fc.funds[fc.n] = coin, f
		fc.n++
	}
	return f
}

// SinglePosition lists the open positions of one symbol (GET
// single-position): one item in one-way mode, up to two in hedge mode.
// The answer is memoised: its slice is shared and read-only.
func (a *Account) SinglePosition(ctx context.Context, req exchange.SinglePositionRequest) ([]exchange.Position, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	op := exchange.OpSinglePosition
	if err := validate(op, req, a.x.now); err != nil {
		return nil, err
	}
	c, err := a.x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return nil, err
	}
	if err := a.checkMarginCoin(op, c, req.MarginCoin); err != nil {
		return nil, err
	}
	return memoised(a.x, &a.memo.singlePosition, req, a.x.stateKey(a.pricesMove(exchange.OpSinglePosition, req.ProductType), false), func() ([]exchange.Position, error) {
		return a.positionRecords(func(p *position) bool { return p.c == c }), nil
	})
}

// marginCoins are the margin coins of a product type's contracts, sorted.
func (x *Exchange) marginCoins(pt exchange.ProductType) []string {
	var coins []string
	for _, c := range x.contracts {
		if c.productType == pt && !slices.Contains(coins, c.marginCoin) {
			coins = append(coins, c.marginCoin)
		}
	}
	slices.Sort(coins)
	return coins
}

// isMarginCoin reports whether coin is a margin coin of product type pt.
func (x *Exchange) isMarginCoin(pt exchange.ProductType, coin string) bool {
	for _, c := range x.contracts {
		if c.productType == pt && c.marginCoin == coin {
			return true
		}
	}
	return false
}

// Accounts returns one item per margin coin of the product type (GET
// accounts). As on the live venue the items carry no posMode (exchange
// notes, "Live venue differences"): SingleAccount and the position records
// have it. The answer is memoised: its slice is shared and read-only.
func (a *Account) Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpAccounts, req, a.x.now); err != nil {
		return nil, err
	}
	return memoised(a.x, &a.memo.accounts, req, a.x.stateKey(a.pricesMove(exchange.OpAccounts, req.ProductType), false), func() ([]exchange.Account, error) {
		return a.accountRecords(req.ProductType), nil
	})
}

// accountRecords are the accounts answer: one item per margin coin of pt,
// computed in fixed, and again in decimal when a number does not fit.
func (a *Account) accountRecords(pt exchange.ProductType) []exchange.Account {
	if !a.x.noFixed {
		if out, ok := accountRecordsIn[fixed, fixedKind](a, pt); ok {
			return out
		}
	}
	out, _ := accountRecordsIn[decimal.Decimal, decimalKind](a, pt)
	return out
}

// accountRecordsIn is accountRecords in N; false when a number did not
// fit.
func accountRecordsIn[N number[N], K numberKind[N]](a *Account, pt exchange.ProductType) ([]exchange.Account, bool) {
	var k K
	out := []exchange.Account{}
	for _, coin := range a.x.marginCoins(pt) {
		f := answerFunds[N, K](a, coin)
		eq := f.equity()
		if !k.ok(f.avail) || !k.ok(f.orderMargin) || !k.ok(eq) || !k.ok(f.unrealised) {
			return nil, false
		}
		avail := k.rounded(f.avail, 8)
		out = append(out, exchange.Account{
			MarginCoin: coin, Available: avail, Locked: k.rounded(f.orderMargin, 8),
			AccountEquity: k.rounded(eq, 8), UnrealizedPL: k.rounded(f.unrealised, 8),
			CrossedMaxAvailable: avail, IsolatedMaxAvailable: avail, MaxTransferOut: avail,
			CrossedRiskRate: "0", Coupon: "0",
			UnionTotalMargin: "0", UnionAvailable: "0", UnionMM: "0",
			IsolatedMargin: "0", CrossedMargin: k.rounded(f.orderMargin, 8),
			CrossedUnrealizedPL: k.rounded(f.unrealised, 8), IsolatedUnrealizedPL: "0", AssetMode: "single",
		})
		if coin == "USDT" {
			out[len(out)-1].USDTEquity = out[len(out)-1].AccountEquity
		}
	}
	return out, true
}

// SingleAccount answers GET /api/v2/mix/account/account: the account of the
// margin coin as seen from one symbol, with the product type's position
// mode, the one account answer of the live venue that carries it.
func (a *Account) SingleAccount(ctx context.Context, req exchange.SingleAccountRequest) (exchange.SingleAccount, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpSingleAccount, req, a.x.now); err != nil {
		return exchange.SingleAccount{}, err
	}
	c, err := a.x.contract(exchange.OpSingleAccount, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.SingleAccount{}, err
	}
	if c.marginCoin != req.MarginCoin {
		return exchange.SingleAccount{}, apiErr(exchange.OpSingleAccount, exchange.CodeParamWrong,
			fmt.Sprintf("marginCoin %s is not the margin coin of %s", req.MarginCoin, req.Symbol))
	}
	var rec exchange.Account
	for _, r := range a.accountRecords(req.ProductType) {
		if r.MarginCoin == req.MarginCoin {
			rec = r
		}
	}
	lev := exchange.NumOf(a.leverageOf(req.Symbol))
	return exchange.SingleAccount{
		MarginCoin: rec.MarginCoin, Locked: rec.Locked, Available: rec.Available,
		CrossedMaxAvailable: rec.CrossedMaxAvailable, IsolatedMaxAvailable: rec.IsolatedMaxAvailable,
		MaxTransferOut: rec.MaxTransferOut, AccountEquity: rec.AccountEquity, USDTEquity: rec.USDTEquity,
		CrossedRiskRate: rec.CrossedRiskRate, CrossedMarginLeverage: lev, IsolatedLongLever: lev, IsolatedShortLever: lev,
		MarginMode: exchange.Crossed, PosMode: a.mode[req.ProductType], UnrealizedPL: rec.UnrealizedPL, Coupon: rec.Coupon,
		CrossedUnrealizedPL: rec.CrossedUnrealizedPL, IsolatedUnrealizedPL: rec.IsolatedUnrealizedPL, AssetMode: rec.AssetMode,
	}, nil
}

// AccountPositionMode is exchange.Client.AccountPositionMode in process.
func (a *Account) AccountPositionMode(ctx context.Context, productType exchange.ProductType, symbol, marginCoin string) (exchange.PosMode, error) {
	acct, err := a.SingleAccount(ctx, exchange.SingleAccountRequest{Symbol: symbol, ProductType: productType, MarginCoin: marginCoin})
	return acct.PosMode, err
}
