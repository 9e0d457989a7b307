package actions

import (
	"context"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// ReversePosition is the key of reverse_position in a rule file.
const ReversePosition rules.ActionKind = "reverse_position"

// reversePositionKind reverses a position at market (click-backhand): it
// closes the position and opens the same size the other way, so it is
// always guarded as an opening order (reverseCheck).
func reversePositionKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: ReversePosition, Op: exchange.OpClickBackhand,
			Doc: "Reverse a position at market (close it and open the other direction).",
			Params: []rulefmt.ParamDef{pSymbol,
				{Name: "side", Type: rulefmt.ParamChoice, Values: []string{"long", "short"},
					Doc: "The position to reverse; needed in hedge mode, ignored in one-way mode.", Example: "long"},
				{Name: "size", Type: rulefmt.ParamNumber, Positive: true, Unit: "base coin",
					Doc: "Hedge mode: how much to reverse (default: the whole position). Ignored in one-way mode.", Example: "1"},
				pProductType, pMarginCoin},
			Example: `reverse_position:
  symbol: TSLAUSDT
  side: long`,
			Check: checkReverse,
		},
		Opens: true,
		plan: func(ctx context.Context, f *firing, a *rules.Action) []Plan {
			p := params{f: f, ps: a.Params}
			c, err := f.contract(p)
			if err != nil {
				return f.failed(a, err)
			}
			req, dir, err := f.reverse(p, c)
			if err != nil {
				return f.failed(a, err)
			}
			check, err := f.reverseCheck(ctx, c, req, dir)
			if err != nil {
				return f.failed(a, err)
			}
			return newPlan(a, req, req.Symbol, req.ProductType, []OrderCheck{check}, req.ClientOID)
		},
		decode: decodeAs[exchange.ClickBackhandRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.ClickBackhandRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Side, s.Size = r.Symbol, string(r.Side), string(r.Size)
			s.Intent, s.Type = "reverse "+holdOf(r.Side), "market"
			return []Shown{s}
		},
	}
}

// reverse builds the click-backhand of a reverse_position and returns the
// direction of the position it reverses.
func (f *firing) reverse(p params, c contractInfo) (exchange.ClickBackhandRequest, string, error) {
	req := exchange.ClickBackhandRequest{Symbol: c.symbol, MarginCoin: c.coin, ProductType: c.pt, Mode: c.mode, ClientOID: f.nextOID()}
	dir, _ := p.text("side")
	if dir == "" && c.mode == exchange.OneWayMode {
		// One-way: the side follows the open position.
		if pos, err := f.st.Position(c.symbol, marketdata.SideLong, 0); err == nil && pos.Size > 0 {
			dir = "long"
		} else {
			dir = "short"
		}
	}
	side, ts, err := ReverseSide(exchange.HoldSide(dir), c.mode)
	if err != nil {
		return req, dir, err
	}
	req.Side, req.TradeSide = side, ts
	if p.has("size") && c.mode == exchange.HedgeMode {
		v, err := p.number("size")
		if err == nil {
			v, err = c.prec.RoundSize(v)
		}
		if err != nil {
			return req, dir, fmt.Errorf("size: %w", err)
		}
		req.Size = exchange.NumOf(v)
	}
	return req, dir, nil
}

// checkReverse checks reverse_position against the position mode.
func checkReverse(c *rules.ActionCheck) {
	switch c.Mode() {
	case exchange.HedgeMode:
		if len(c.Given("side")) == 0 {
			c.Errorf(c.At(), "add side: long or side: short", "in hedge mode reverse_position needs the side of the position to reverse")
		}
	case exchange.OneWayMode:
		if len(c.Given("size")) > 0 {
			c.Warnf(c.Where("size"), "remove size; in one-way mode the whole position is reversed",
				"size is ignored in one-way mode")
		}
	}
}
