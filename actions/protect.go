package actions

import (
	"context"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// Protect is the key of protect in a rule file.
const Protect rules.ActionKind = "protect"

// protectKind places a position's take-profit, stop-loss and trailing stop
// as orders that rest on the exchange (place-tpsl-order), one request each.
// They can only close the position, so it never opens anything and the
// kill switch lets them through like exits.
func protectKind() Kind {
	return Kind{
		Def: &rules.ActionDef{
			Kind: Protect, Op: exchange.OpPlaceTPSLOrder,
			Doc: "Protect an open position with orders that rest on the exchange, so they hold while the engine is down: a take-profit, a stop-loss and a trailing stop, each one request. They only ever close the position, so the kill switch and the safety limits never hold them back; the exchange cancels them when the position closes.",
			Params: []rulefmt.ParamDef{pSymbol,
				{Name: "position", Type: rulefmt.ParamChoice, Values: []string{"long", "short"}, Required: true,
					Doc: "The position to protect. The engine maps it to the exchange's hold side for the account's position mode.", Example: "long"},
				{Name: "take_profit", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
					Doc: "Close at market when the price reaches this (a long's rises to it, a short's falls to it).", Example: "=position(symbol, \"long\").entry_price * 1.05"},
				{Name: "stop_loss", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
					Doc: "Close at market when the price reaches this (a long's falls to it, a short's rises to it).", Example: "=position(symbol, \"long\").entry_price * 0.97"},
				{Name: "trailing_ratio", Type: rulefmt.ParamNumber, Positive: true, Unit: "percent",
					Doc: "Trailing stop: once active it follows the best price since (the high of a long, the low of a short) and closes at market when the price comes back this many percent from it. At most 10.", Example: "2"},
				{Name: "trailing_distance", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
					Doc: "Trailing stop by a price distance instead of a ratio. The exchange trails by ratio only: the engine sends distance / activation price as the ratio, so the distance holds exactly at the activation price.", Example: "5"},
				{Name: "activation_price", Type: rulefmt.ParamNumber, Positive: true, Unit: "quote currency per base coin",
					Doc: "Trailing stop: the price at which it starts to follow (a long's above, a short's below). Default: the last price when the rule fires, so it follows at once.", Example: "250"},
				{Name: "size", Type: rulefmt.ParamNumber, Positive: true, Unit: "base coin",
					Doc: "How much of the position to close. Default: take-profit and stop-loss the whole position (whatever its size when they trigger); the trailing stop the position's size when the rule fires.", Example: "1"},
				{Name: "trigger", Type: rulefmt.ParamChoice, Values: []string{"mark", "last"},
					Doc: "The price that triggers them: mark (default; harder to spike) or last (the last trade).", Example: "last"},
				pProductType, pMarginCoin},
			Example: `protect:
  symbol: TSLAUSDT
  position: long
  stop_loss: =position("TSLAUSDT", "long").entry_price * 0.97
  trailing_ratio: 2`,
			Check: checkProtect,
		},
		plan:   func(ctx context.Context, f *firing, a *rules.Action) []Plan { return f.protect(ctx, a) },
		decode: decodeAs[exchange.PlaceTPSLOrderRequest],
		show: func(l Leg) []Shown {
			r, _ := l.Request.(exchange.PlaceTPSLOrderRequest) // zero for a leg that was never built
			s := firstIDs(l)
			s.Symbol, s.Type, s.Size, s.Price = r.Symbol, string(r.PlanType), string(r.Size), string(r.TriggerPrice)
			s.Intent = protectionName(r.PlanType) + " " + positionOf(r.HoldSide)
			if r.RangeRate != "" {
				s.Intent += ", trailing " + string(r.RangeRate) + "%"
			}
			return []Shown{s}
		},
	}
}

// protectionName is a plan type of place-tpsl-order in a trader's words.
func protectionName(t exchange.PlanType) string {
	switch t {
	case exchange.PlanProfit, exchange.PlanPosProfit:
		return "take-profit"
	case exchange.PlanLoss, exchange.PlanPosLoss:
		return "stop-loss"
	case exchange.PlanMoving:
		return "trailing stop"
	}
	return string(t)
}

// positionOf is the position a holdSide names: long for long and buy.
func positionOf(holdSide string) string {
	if holdSide == "short" || holdSide == "sell" {
		return "short"
	}
	return "long"
}

// ratioPlaces is how many decimal places of a percent a trailing ratio is
// sent with.
const ratioPlaces = 2

// protect plans the requests of one protect action: take-profit, stop-loss,
// trailing stop, in that order, each with its own client order id.
func (f *firing) protect(ctx context.Context, a *rules.Action) []Plan {
	p := params{f: f, ps: a.Params}
	c, err := f.contract(p)
	if err != nil {
		return f.failed(a, err)
	}
	dir, err := p.text("position")
	if err != nil {
		return f.failed(a, err)
	}
	hold, err := HoldSideFor(exchange.HoldSide(dir), c.mode)
	if err != nil {
		return f.failed(a, fmt.Errorf("position: %w", err))
	}
	trigger := exchange.TriggerMarkPrice
	if t, _ := p.text("trigger"); t == "last" {
		trigger = exchange.TriggerFillPrice
	}
	var size decimal.Decimal
	if p.has("size") {
		if size, err = p.number("size"); err == nil {
			size, err = c.prec.RoundSize(size)
		}
		if err != nil {
			return f.failed(a, fmt.Errorf("size: %w", err))
		}
	}
	base := exchange.PlaceTPSLOrderRequest{MarginCoin: c.coin, ProductType: c.pt, Symbol: c.symbol, TriggerType: trigger, HoldSide: hold}
	var plans []Plan
	add := func(req exchange.PlaceTPSLOrderRequest, size decimal.Decimal) {
		req.ClientOID = f.nextOID()
		check := OrderCheck{Symbol: c.symbol, Size: size, Reducing: true}
		plans = append(plans, newPlan(a, req, c.symbol, c.pt, []OrderCheck{check}, req.ClientOID)...)
	}
	for _, e := range []struct {
		name        string
		part, whole exchange.PlanType
	}{{"take_profit", exchange.PlanProfit, exchange.PlanPosProfit}, {"stop_loss", exchange.PlanLoss, exchange.PlanPosLoss}} {
		if !p.has(e.name) {
			continue
		}
		price, err := p.number(e.name)
		if err == nil {
			price, err = c.prec.RoundPriceNearest(price)
		}
		if err != nil {
			return f.failed(a, fmt.Errorf("%s: %w", e.name, err))
		}
		req := base
		req.TriggerPrice, req.PlanType = exchange.NumOf(price), e.whole
		if size.IsPositive() {
			req.PlanType, req.Size = e.part, exchange.NumOf(size)
		}
		add(req, size)
	}
	if p.has("trailing_ratio") || p.has("trailing_distance") {
		req, trailSize, err := f.trailingStop(ctx, p, c, base, dir, size)
		if err != nil {
			return f.failed(a, err)
		}
		add(req, trailSize)
	}
	return plans
}

// trailingStop builds the moving_plan of a protect action: its activation
// price (written, or the last price), its ratio (written, or the distance
// as a ratio of the activation price) and its size (written, or the
// position's).
func (f *firing) trailingStop(ctx context.Context, p params, c contractInfo, req exchange.PlaceTPSLOrderRequest, dir string, size decimal.Decimal) (exchange.PlaceTPSLOrderRequest, decimal.Decimal, error) {
	var activation decimal.Decimal
	var err error
	if p.has("activation_price") {
		if activation, err = p.number("activation_price"); err == nil {
			activation, err = c.prec.RoundPriceNearest(activation)
		}
		if err != nil {
			return req, size, fmt.Errorf("activation_price: %w", err)
		}
	} else if activation = f.referencePrice(ctx, c); !activation.IsPositive() {
		return req, size, errors.New("activation_price: the last price of " + c.symbol + " could not be read to start the trailing stop from; write activation_price")
	}
	var ratio decimal.Decimal
	if p.has("trailing_ratio") {
		ratio, err = p.number("trailing_ratio")
	} else {
		var distance decimal.Decimal
		if distance, err = p.number("trailing_distance"); err == nil {
			ratio = distance.Div(activation).Mul(decimal.NewFromInt(100))
		}
	}
	if err != nil {
		return req, size, err
	}
	ratio = ratio.Round(ratioPlaces)
	if !ratio.IsPositive() || ratio.GreaterThan(decimal.NewFromInt(exchange.MaxCallbackRatio)) {
		return req, size, fmt.Errorf("trailing stop: %s percent is not a ratio the exchange trails by (above 0, at most %d)", ratio, exchange.MaxCallbackRatio)
	}
	if !size.IsPositive() {
		pos, err := f.st.Position(c.symbol, dir, 0)
		if err != nil {
			return req, size, fmt.Errorf("trailing stop: the %s position of %s is not known: %w; write size", dir, c.symbol, err)
		}
		if size, err = c.prec.RoundSize(decimal.NewFromFloat(pos.Size)); err != nil || !size.IsPositive() {
			return req, size, fmt.Errorf("trailing stop: no %s position of %s to trail", dir, c.symbol)
		}
	}
	req.PlanType, req.TriggerPrice, req.RangeRate, req.Size = exchange.PlanMoving, exchange.NumOf(activation), exchange.NumOf(ratio), exchange.NumOf(size)
	return req, size, nil
}

// checkProtect requires something to protect with, one way of trailing, an
// activation price only for a trail, and a ratio the exchange takes.
func checkProtect(c *rules.ActionCheck) {
	if len(c.Given("take_profit", "stop_loss", "trailing_ratio", "trailing_distance")) == 0 {
		c.Errorf(c.At(), "add stop_loss: PRICE, take_profit: PRICE or trailing_ratio: PERCENT",
			"protect needs take_profit, stop_loss, trailing_ratio or trailing_distance")
	}
	if g := c.Given("trailing_ratio", "trailing_distance"); len(g) == 2 {
		c.Errorf(c.Where(g[1]), "keep one: the exchange trails by one amount", "give trailing_ratio or trailing_distance, not both")
	}
	if len(c.Given("activation_price")) > 0 && len(c.Given("trailing_ratio", "trailing_distance")) == 0 {
		c.Errorf(c.Where("activation_price"), "add trailing_ratio or trailing_distance, or remove activation_price",
			"activation_price only goes with a trailing stop")
	}
	c.MaxRatio("trailing_ratio")
}
