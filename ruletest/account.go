package ruletest

import (
	"context"
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/poll"
)

// accountReader is what a test reads of a scenario account to start from
// it: the records the engine's pollers read, nothing else.
type accountReader interface {
	AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error)
	PendingOrders(ctx context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error)
	StrategyOrders(ctx context.Context, req exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error)
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
}

// maxAccountOrders is the most pending orders of one product type a test
// takes from a scenario account: one page of the exchange's answer. A
// starting state a person reads has far fewer.
const maxAccountOrders = 100

// accountStart is a scenario account's state as the simulator serves it at
// the scenario's start (then), in the records the engine reads.
type accountStart struct {
	positions []exchange.Position
	orders    []exchange.PendingOrder
	strategy  []exchange.StrategyOrder
	balances  []exchange.Account
	modes     map[exchange.ProductType]exchange.PosMode
	then      time.Time
}

// readAccount reads every futures product type of one account.
func readAccount(ctx context.Context, r accountReader, then time.Time) (*accountStart, error) {
	a := &accountStart{modes: map[exchange.ProductType]exchange.PosMode{}, then: then}
	for _, pt := range exchange.ProductTypes() {
		pos, err := r.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("positions of %s: %w", pt, err)
		}
		a.positions = append(a.positions, pos...)
		page, err := r.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: pt, Limit: maxAccountOrders})
		if err != nil {
			return nil, fmt.Errorf("pending orders of %s: %w", pt, err)
		}
		if len(page.EntrustedList) >= maxAccountOrders {
			return nil, fmt.Errorf("pending orders of %s: %d or more; a test starts from at most %d", pt, maxAccountOrders, maxAccountOrders-1)
		}
		a.orders = append(a.orders, page.EntrustedList...)
		so, err := r.StrategyOrders(ctx, exchange.StrategyOrdersRequest{Category: pt.Category()})
		if err != nil {
			return nil, fmt.Errorf("strategy orders of %s: %w", pt.Category(), err)
		}
		a.strategy = append(a.strategy, so...)
		accts, err := r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("balances of %s: %w", pt, err)
		}
		for _, b := range accts {
			// The world keeps one balance per coin, under the product type
			// the coin margins.
			if exchange.ProductTypeOfCoin(b.MarginCoin) == pt {
				a.balances = append(a.balances, b)
			}
			if b.PosMode != "" {
				a.modes[pt] = b.PosMode
			}
		}
	}
	// The accounts list carries no posMode on the live venue nor on the
	// simulator; a reader that reads the single account gives the modes.
	if ms, ok := r.(exchange.ModeSource); ok {
		modes, err := exchange.PositionModes(ctx, ms)
		if err != nil {
			return nil, err
		}
		for pt, m := range modes {
			a.modes[pt] = m
		}
	}
	return a, nil
}

// applyAccount makes the account's state what the world holds at the
// test's start: every position, order and strategy order of the world is
// replaced by the account's. Records keep the age they had at the
// scenario's start.
func (w *world) applyAccount(a *accountStart, start time.Time) error {
	age := func(c exchange.Millis) time.Duration {
		if t := c.Time(); !t.IsZero() && t.Before(a.then) {
			return a.then.Sub(t)
		}
		return 0
	}
	for pt, m := range a.modes {
		w.modes[pt] = m
	}
	w.positions = map[posKey]*heldPosition{}
	for i := range a.positions {
		p := &a.positions[i]
		c, ok := w.cat.Contract(p.Symbol)
		if !ok {
			return fmt.Errorf("position symbol %s is not a contract of the scenario", p.Symbol)
		}
		w.positions[posKey{p.Symbol, string(p.HoldSide)}] = &heldPosition{pt: c.ProductType, setAt: start, opened: start.Add(-age(p.CTime)), Position: &Position{
			Symbol: p.Symbol, Side: string(p.HoldSide), Size: Num(p.Total), Entry: Num(p.OpenPriceAvg), Mark: Num(p.MarkPrice),
			UnrealizedPnL: Num(p.UnrealizedPL), Leverage: Num(p.Leverage), MarginMode: string(p.MarginMode),
			Age: Duration{D: age(p.CTime)}}}
	}
	w.orders = w.orders[:0:0]
	for _, o := range a.orders {
		c, ok := w.cat.Contract(o.Symbol)
		if !ok {
			return fmt.Errorf("order symbol %s is not a contract of the scenario", o.Symbol)
		}
		w.orders = append(w.orders, &heldOrder{o: o, pt: c.ProductType, setAt: start, age: age(o.CTime)})
	}
	held := make([]heldStrategy, 0, len(a.strategy))
	for _, o := range a.strategy {
		held = append(held, heldStrategy{o: o, setAt: start, age: age(o.CreatedTime)})
	}
	w.setStrategy(held)
	for _, b := range a.balances {
		w.balances[b.MarginCoin] = &Balance{Available: Num(b.Available), Locked: Num(b.Locked), Equity: Num(b.AccountEquity)}
	}
	return nil
}

// Keep the reader's methods those of the pollers: a test starts from what
// the engine would have read.
var _ accountReader = poll.Reader(nil)
