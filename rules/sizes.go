package rules

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// AccountFacts are figures of an account known without asking a venue
// (engine check takes them from the demo scenario). With them the loader
// warns about an order whose value is far beyond what the account can
// carry: a size with extra zeros, or written in USDT instead of in the
// base coin.
type AccountFacts struct {
	// Source names where the figures come from: "the demo scenario".
	Source string
	// Equity is the account's equity per margin coin.
	Equity map[string]decimal.Decimal
	// Prices is a reference price per contract symbol, used when an order
	// has no literal price.
	Prices map[string]decimal.Decimal
	// Leverage is the leverage orders are placed at; zero means 1.
	Leverage decimal.Decimal
}

// checkSizes checks the literal sizes of a place_order or of the orders of
// a batch_place against the contract's largest order (an error: the
// exchange rejects it) and against the account's equity (a warning).
func (f *fileLoader) checkSizes(a *Action) {
	switch a.Def.Op {
	case exchange.OpPlaceOrder:
		f.checkSize(a.Params, a.Params)
	case exchange.OpBatchPlaceOrder:
		for _, o := range a.Orders {
			f.checkSize(o, a.Params)
		}
	}
}

func (f *fileLoader) checkSize(p, action Params) {
	size, ok := p.Decimal("size")
	if !ok {
		return
	}
	sym, ok := p.Text("symbol")
	if !ok {
		if sym, ok = action.Text("symbol"); !ok {
			return
		}
	}
	cat := f.opts.Catalog
	if cat == nil {
		return
	}
	k, ok := cat.Contract(sym)
	if !ok {
		return
	}
	at := p["size"].Pos
	limit, what := k.MaxOrderQty, "order"
	if typ, _ := p.Text("type"); typ == string(exchange.Market) && !k.MaxMarketOrderQty.IsZero() {
		limit, what = k.MaxMarketOrderQty, "market order"
	}
	if max, err := limit.Decimal(); err == nil && max.IsPositive() && size.GreaterThan(max) {
		hint := fmt.Sprintf("the exchange rejects a larger %s; lower the size or split the order", what)
		for _, d := range []int64{10, 100, 1000} {
			if s := size.Div(decimal.NewFromInt(d)); !s.GreaterThan(max) {
				hint = fmt.Sprintf("did you mean size: %s? (%s has more zeros than the largest %s of %s, %s)", s, size, what, sym, max)
				break
			}
		}
		f.errs = append(f.errs, f.errorAtPosition(at, rulefmt.SeverityError,
			fmt.Sprintf("size %s is above the largest %s %s accepts (%s)", size, what, sym, max), hint))
		return
	}
	f.checkNotional(p, sym, k.BaseCoin, k.ProductType, size, at)
}

// checkNotional warns when the order's value needs more margin than the
// account has, at the facts' leverage.
func (f *fileLoader) checkNotional(p Params, sym, base string, pt exchange.ProductType, size decimal.Decimal, at Position) {
	facts := f.opts.Account
	if facts == nil {
		return
	}
	coin := map[exchange.ProductType]string{exchange.USDTFutures: "USDT", exchange.USDCFutures: "USDC"}[pt]
	equity, ok := facts.Equity[coin]
	if coin == "" || !ok || !equity.IsPositive() {
		return // coin-margined sizes are not in the margin coin's units
	}
	price, literal := p.Decimal("price")
	if !literal {
		if price, ok = facts.Prices[sym]; !ok {
			return
		}
	}
	lev := facts.Leverage
	if !lev.IsPositive() {
		lev = decimal.NewFromInt(1)
	}
	value := size.Mul(price)
	if !value.GreaterThan(equity.Mul(lev)) {
		return
	}
	priceWords := "at the price " + price.String()
	if !literal {
		priceWords = fmt.Sprintf("at about %s, %s's price", price, facts.Source)
	}
	msg := fmt.Sprintf("this order is worth about %s %s (size %s %s), %s times the equity of %s's account (%s %s): at %sx leverage it cannot be placed",
		roundFigure(value), coin, size, priceWords, value.Div(equity).StringFixed(1), facts.Source, roundFigure(equity), coin, lev)
	meant := size.Div(price).Round(2)
	hint := fmt.Sprintf("size is in %s (the base coin), not in %s: %s %s buys about %s %s", base, coin, size, coin, meant, base)
	if meant.IsPositive() {
		hint = fmt.Sprintf("did you mean size: %s? %s", meant, hint)
	}
	f.errs = append(f.errs, f.errorAtPosition(at, rulefmt.SeverityWarning, msg, hint))
}

// roundFigure writes a large amount with thousands separators and no
// decimals, as a person reads it.
func roundFigure(d decimal.Decimal) string {
	s := d.Round(0).String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// errorAtPosition builds a finding at an author's position.
func (f *fileLoader) errorAtPosition(at Position, sev rulefmt.Severity, msg, hint string) *rulefmt.Error {
	return &rulefmt.Error{File: at.File, Line: at.Line, Column: at.Column, Severity: sev, Message: msg, Hint: hint, Source: f.Src.OrigLine(at.Line)}
}
