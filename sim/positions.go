package sim

import (
	"context"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

func (a *Account) positionRecord(p *position) exchange.Position {
	lev := a.leverageOf(p.c.spec.Symbol)
	mark, _ := a.x.price(p.c)
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
	return exchange.Position{
		Symbol: p.c.spec.Symbol, MarginCoin: p.c.marginCoin, HoldSide: holdSide(p.long),
		Total: num(p.size), Available: num(p.size.Sub(locked)), Locked: num(locked),
		OpenPriceAvg: num(p.avg.Round(p.c.pricePlace + 4)), MarkPrice: num(mark),
		LiquidationPrice: num(p.liquidation(lev, a.x.set.MaintenanceMarginRate, a.funds(p.c.marginCoin).available())),
		Leverage:         num(lev), MarginMode: p.marginMode, PosMode: a.mode[p.c.productType],
		UnrealizedPL: num(p.unrealised(mark).Round(8)), AchievedProfits: num(p.achieved.Round(8)),
		MarginSize: num(p.margin(lev).Round(8)), BreakEvenPrice: num(breakEven.Round(p.c.pricePlace + 4)),
		CTime: exchange.MillisOf(p.cTime), UTime: exchange.MillisOf(p.uTime),
	}
}

// AllPositions lists the open positions of a product type (GET all-position).
// The answer is memoised (see memo.go): its slice is shared and read-only.
func (a *Account) AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpAllPositions, req, a.x.now); err != nil {
		return nil, err
	}
	return memoised(a.x, &a.memo.allPositions, req, a.x.stateKey(true, false), func() ([]exchange.Position, error) {
		return a.positionRecords(func(p *position) bool {
			return p.c.productType == req.ProductType && (req.MarginCoin == "" || p.c.marginCoin == req.MarginCoin)
		}), nil
	})
}

// positionRecords are the records of the positions that match.
func (a *Account) positionRecords(match func(*position) bool) []exchange.Position {
	out := []exchange.Position{}
	for _, p := range a.positions {
		if match(p) {
			out = append(out, a.positionRecord(p))
		}
	}
	return out
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
	return memoised(a.x, &a.memo.singlePosition, req, a.x.stateKey(true, false), func() ([]exchange.Position, error) {
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

// Accounts returns one item per margin coin of the product type (GET
// accounts), with the account's position mode for it. The answer is
// memoised: its slice is shared and read-only.
func (a *Account) Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error) {
	a.x.lock()
	defer a.x.mu.Unlock()
	if err := validate(exchange.OpAccounts, req, a.x.now); err != nil {
		return nil, err
	}
	return memoised(a.x, &a.memo.accounts, req, a.x.stateKey(true, false), func() ([]exchange.Account, error) {
		return a.accountRecords(req.ProductType), nil
	})
}

// accountRecords are the accounts answer: one item per margin coin of pt.
func (a *Account) accountRecords(pt exchange.ProductType) []exchange.Account {
	out := []exchange.Account{}
	for _, coin := range a.x.marginCoins(pt) {
		f := a.funds(coin)
		avail := f.available()
		out = append(out, exchange.Account{
			MarginCoin: coin, Available: num(avail.Round(8)), Locked: num(f.orderMargin.Round(8)),
			AccountEquity: num(f.equity().Round(8)), UnrealizedPL: num(f.unrealised.Round(8)),
			CrossedMaxAvailable: num(avail.Round(8)), IsolatedMaxAvailable: num(avail.Round(8)),
			PosMode: a.mode[pt],
		})
	}
	return out
}
