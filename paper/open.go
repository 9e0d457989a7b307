package paper

import (
	"context"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/sim"
)

// Live is what a dry run reads from the venue: a Reader, which cannot send
// an order.
type Live interface {
	exchange.Reader
}

// Open seeds a paper account from live at the clock's time and returns the
// dry-run venue and its price feed. contracts are the venue's contracts.
func Open(ctx context.Context, live Live, contracts []marketdata.ProductContract, clk exchange.Clock, log *zap.Logger) (*Account, *LiveMarket, error) {
	if log == nil {
		log = zap.NewNop()
	}
	sc, err := Seed(ctx, live, contracts, clk.Now())
	if err != nil {
		return nil, nil, err
	}
	ticks := map[string]decimal.Decimal{}
	pts := map[string]exchange.ProductType{}
	for _, c := range contracts {
		pp, err := c.PricePlace.Decimal()
		if err != nil {
			return nil, nil, fmt.Errorf("contract %s: pricePlace: %w", c.Symbol, err)
		}
		step := c.PriceEndStep.MustDecimal()
		if !step.IsPositive() {
			step = decimal.NewFromInt(1)
		}
		ticks[c.Symbol] = step.Shift(-int32(pp.IntPart()))
		pts[c.Symbol] = c.ProductType
	}
	lm, err := NewLiveMarket(live, ticks, pts, clk.Now(), log)
	if err != nil {
		return nil, nil, err
	}
	x, err := sim.New(sc, sim.Options{Clock: clk, Logger: log, Market: lm})
	if err != nil {
		return nil, nil, fmt.Errorf("paper account: %w", err)
	}
	a, ok := x.Account(APIKey)
	if !ok {
		return nil, nil, errors.New("paper account: not created")
	}
	return NewAccount(a, live), lm, nil
}
