package paper

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim"
)

// APIKey is the key of the paper account inside its simulator.
const APIKey = "paper"

// SeedReader is what seeding reads from the live account.
type SeedReader interface {
	Accounts(ctx context.Context, req exchange.AccountsRequest) ([]exchange.Account, error)
	AllPositions(ctx context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error)
	PendingOrders(ctx context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error)
}

// Seed builds the scenario of a paper account that starts where the live
// account is at now: the same balances per margin coin (equity), position
// modes, open positions and open limit orders (under their own client order
// ids, so lookups by clientOid work the same).
func Seed(ctx context.Context, r SeedReader, contracts []marketdata.ProductContract, now time.Time) (*sim.Scenario, error) {
	acct := sim.AccountSpec{
		UID: "paper", APIKey: APIKey, Secret: "paper", Passphrase: "paper",
		Balances:     map[string]decimal.Decimal{},
		PositionMode: map[exchange.ProductType]exchange.PosMode{},
	}
	// The live venue's accounts list carries no posMode: a reader that can
	// read the single account gives the modes (the loop below still takes
	// a mode an accounts list carries, as recordings do).
	if ms, ok := r.(exchange.ModeSource); ok {
		modes, err := exchange.PositionModes(ctx, ms)
		if err != nil {
			return nil, fmt.Errorf("seed paper account: %w", err)
		}
		for pt, m := range modes {
			acct.PositionMode[pt] = m
		}
	}
	for _, pt := range exchange.ProductTypes() {
		as, err := r.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("seed paper account: read %s balances: %w", pt, err)
		}
		for _, a := range as {
			eq, err := a.AccountEquity.Decimal()
			if err != nil {
				return nil, fmt.Errorf("seed paper account: %s equity: %w", a.MarginCoin, err)
			}
			acct.Balances[a.MarginCoin] = acct.Balances[a.MarginCoin].Add(eq)
			if a.PosMode != "" {
				acct.PositionMode[pt] = a.PosMode
			}
		}
		pos, err := r.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("seed paper account: read %s positions: %w", pt, err)
		}
		for _, p := range pos {
			size, err1 := p.Total.Decimal()
			open, err2 := p.OpenPriceAvg.Decimal()
			if err1 != nil || err2 != nil || !size.IsPositive() {
				continue
			}
			acct.Positions = append(acct.Positions, sim.PositionSpec{Symbol: p.Symbol, ProductType: pt, HoldSide: p.HoldSide, Size: size, OpenPrice: open, MarginMode: p.MarginMode})
		}
		page, err := r.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: pt, Limit: 100})
		if err != nil {
			return nil, fmt.Errorf("seed paper account: read %s orders: %w", pt, err)
		}
		for _, o := range page.EntrustedList {
			if o.OrderType != exchange.Limit {
				continue
			}
			left := o.Size.MustDecimal().Sub(o.BaseVolume.MustDecimal())
			if !left.IsPositive() {
				continue
			}
			spec := sim.OrderSpec{Symbol: o.Symbol, ProductType: pt, MarginMode: o.MarginMode, Side: o.Side, OrderType: exchange.Limit,
				Price: o.Price, Size: exchange.NumOf(left), Force: o.Force, ClientOID: o.ClientOID}
			if acct.PositionMode[pt] == exchange.HedgeMode {
				spec.TradeSide = exchange.Open
				if o.TradeSide == exchange.Close {
					spec.TradeSide = exchange.Close
				}
			}
			acct.Orders = append(acct.Orders, spec)
		}
	}
	sc := &sim.Scenario{Name: "paper", Clock: sim.ClockSpec{Start: now, Step: time.Second}, Accounts: []sim.AccountSpec{acct}}
	for _, c := range contracts {
		sc.Contracts = append(sc.Contracts, sim.ContractSpec{ProductType: c.ProductType, Contract: c.Contract})
	}
	return sc, nil
}
