package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// ClosePositions is the key of close_positions in a rule file.
const ClosePositions rules.ActionKind = "close_positions"

// closePositionsKind closes positions at market, of one contract or of the
// whole product type; closing only reduces exposure, so it passes the
// guard.
func closePositionsKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: ClosePositions, Op: exchange.OpClosePositions,
			Doc: "Close positions at market: of one contract or, without symbol, of the whole product type.",
			Params: []rulefmt.ParamDef{{Name: "symbol", Type: rulefmt.ParamSymbol, Doc: "The contract; without it, every position of the product type.", Example: "TSLAUSDT"},
				{Name: "side", Type: rulefmt.ParamChoice, Values: []string{"long", "short"},
					Doc: "Hedge mode: only this direction (default both). Ignored in one-way mode.", Example: "long"},
				pProductType},
			Example: `close_positions:
  symbol: TSLAUSDT`,
			Check: checkClose,
		},
		plan: func(_ context.Context, f *firing, a *rules.Action) []Plan {
			req, err := f.closeReq(params{f: f, ps: a.Params})
			if err != nil {
				return f.failed(a, err)
			}
			return newPlan(a, req, req.Symbol, req.ProductType, nil)
		},
		decode: decodeAs[exchange.ClosePositionsRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.ClosePositionsRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Intent, s.Type = symbolOr(r.Symbol, r.ProductType), "close all", "market"
			if r.HoldSide != "" {
				s.Intent = "close " + string(r.HoldSide)
			}
			return []Shown{s}
		},
	}
}

func (f *firing) closeReq(p params) (exchange.ClosePositionsRequest, error) {
	pt, err := f.productType(p)
	if err != nil {
		return exchange.ClosePositionsRequest{}, err
	}
	req := exchange.ClosePositionsRequest{ProductType: pt}
	if p.has("symbol") || f.rule.Symbol != "" {
		c, err := f.contract(p)
		if err != nil {
			return req, err
		}
		req.ProductType, req.Symbol = c.pt, c.symbol
	}
	side, _ := p.text("side")
	req.HoldSide = exchange.HoldSide(side)
	return req, nil
}

// checkClose warns about a side that one-way mode ignores.
func checkClose(c *rules.ActionCheck) {
	if c.Mode() == exchange.OneWayMode && len(c.Given("side")) > 0 {
		c.Warnf(c.Where("side"), "remove side; in one-way mode the position of the symbol is closed",
			"side is ignored in one-way mode")
	}
}
