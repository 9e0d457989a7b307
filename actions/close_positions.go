package actions

import (
	"context"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// closePositionsKind closes positions at market, of one contract or of the
// whole product type; closing only reduces exposure, so it passes the
// guard.
func closePositionsKind() Kind {
	return Kind{
		Name: rules.ClosePositions,
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
