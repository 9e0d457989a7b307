package rules

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// ActionCheck is what an action kind's Check reads and reports through:
// the parameters given, where their keys are, where the action starts and
// the account's position mode when it is known. Its methods state the
// rules shared by several kinds (one of two, both or neither...); a kind's
// own rules use Given, Params and Errorf.
type ActionCheck struct {
	f      *fileLoader
	def    *ActionDef
	params Params
	keys   map[string]rulefmt.Pos
	at     rulefmt.Pos
	mode   exchange.PosMode
}

// Params returns the parameters given, already type-checked.
func (c *ActionCheck) Params() Params { return c.params }

// Mode returns the account's position mode when it is known (the file's
// defaults.position_mode, checked against the account by engine check
// --venue), "" otherwise.
func (c *ActionCheck) Mode() exchange.PosMode { return c.mode }

// At returns where the action starts (its kind's key).
func (c *ActionCheck) At() rulefmt.Pos { return c.at }

// Where returns the position of parameter name's key, or the action's.
func (c *ActionCheck) Where(name string) rulefmt.Pos { return c.where(c.keys, name) }

func (c *ActionCheck) where(keys map[string]rulefmt.Pos, name string) rulefmt.Pos {
	if p, ok := keys[name]; ok {
		return p
	}
	return c.at
}

// Given returns those of names that were written, in names' order.
func (c *ActionCheck) Given(names ...string) []string {
	var out []string
	for _, n := range names {
		if _, ok := c.keys[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// Errorf reports an error at at, with a hint of what to write instead.
func (c *ActionCheck) Errorf(at rulefmt.Pos, hint, format string, args ...any) {
	c.f.ErrorAt(at, hint, format, args...)
}

// Warnf reports a warning at at: the rule loads, but part of it does
// nothing or not what it seems to.
func (c *ActionCheck) Warnf(at rulefmt.Pos, hint, format string, args ...any) {
	c.f.WarnAt(at, hint, fmt.Sprintf(format, args...))
}

// CheckOrderItem checks the action's own parameters as one order, as
// place_order's and place_trigger's Check do (the items of batch_place
// are checked the same way by the loader).
func (c *ActionCheck) CheckOrderItem() { c.checkOrderItem(c.params, c.keys, c.at) }

// ExactlyOne requires one and only one of a and b.
func (c *ActionCheck) ExactlyOne(a, b string) {
	switch g := c.Given(a, b); len(g) {
	case 0:
		c.f.ErrorAt(c.at, "", "%s needs %s or %s", c.def.Kind, a, b)
	case 2:
		c.f.ErrorAt(c.where(c.keys, b), fmt.Sprintf("remove %s or %s", a, b), "give %s or %s, not both", a, b)
	}
}

// Together requires a and b both or neither.
func (c *ActionCheck) Together(a, b string) {
	if g := c.Given(a, b); len(g) == 1 {
		missing := a
		if g[0] == a {
			missing = b
		}
		c.f.ErrorAt(c.where(c.keys, g[0]), "the exchange changes size and price at once; add "+missing,
			"%s must be given together with %s", g[0], missing)
	}
}

// AtLeastOne requires one of names.
func (c *ActionCheck) AtLeastOne(names ...string) {
	if len(c.Given(names...)) == 0 {
		c.f.ErrorAt(c.at, "give "+strings.Join(names, ", "), "%s changes nothing", c.def.Kind)
	}
}

// checkOrderItem checks one order (place_order, or an item of batch_place):
// what it does (open/close/side), the raw fields that go with side, the
// position mode, price against order type, and preset prices against price.
func (c *ActionCheck) checkOrderItem(p Params, keys map[string]rulefmt.Pos, at rulefmt.Pos) {
	has := func(n string) bool { _, ok := keys[n]; return ok }
	var intents []string
	for _, n := range []string{"open", "close", "side"} {
		if has(n) {
			intents = append(intents, n)
		}
	}
	switch len(intents) {
	case 0:
		c.f.ErrorAt(at, "add open: long, open: short, close: long or close: short",
			"the order does not say what it does")
	case 1:
	default:
		c.f.ErrorAt(c.where(keys, intents[1]), "keep one of them; open/close are mapped to side for you",
			"give only one of %s", strings.Join(intents, " and "))
	}
	if !has("side") {
		for _, raw := range []string{"trade_side", "reduce_only"} {
			if has(raw) && len(intents) == 1 {
				c.f.ErrorAt(keys[raw], "remove it; with "+intents[0]+": the engine sets it from the position mode",
					"%s only goes with side", raw)
			}
		}
	}
	switch c.mode {
	case exchange.OneWayMode:
		if has("trade_side") {
			c.f.ErrorAt(keys["trade_side"], "remove trade_side, or use open:/close: which work in both modes",
				"trade_side is not allowed in one-way mode (the exchange rejects it)")
		}
	case exchange.HedgeMode:
		if has("reduce_only") {
			c.f.ErrorAt(keys["reduce_only"], "use close: long or close: short to reduce a position",
				"reduce_only is for one-way mode; this account is in hedge mode")
		}
		if has("side") && !has("trade_side") {
			c.f.ErrorAt(keys["side"], "add trade_side: open or close, or use open:/close:",
				"in hedge mode side needs trade_side")
		}
	}
	typ, _ := p.Text("type")
	switch typ {
	case string(exchange.Limit):
		if !has("price") {
			c.f.ErrorAt(c.where(keys, "type"), "add price:, or use type: market", "a limit order needs price")
		}
	case string(exchange.Market):
		if has("price") {
			c.f.ErrorAt(keys["price"], "remove price, or use type: limit", "a market order takes no price")
		}
		if has("force") {
			c.f.ErrorAt(keys["force"], "remove force; it only applies to limit orders", "a market order takes no force")
		}
	}
	c.checkPresets(p, keys)
}

// checkPresets compares literal take-profit and stop-loss prices with a
// literal limit price: for a long they must be above and below it.
func (c *ActionCheck) checkPresets(p Params, keys map[string]rulefmt.Pos) {
	price, ok := p.Decimal("price")
	if !ok {
		return
	}
	long := false
	switch {
	case textIs(p, "open", "long"), textIs(p, "side", "buy") && !textIs(p, "trade_side", "close"):
		long = true
	case textIs(p, "open", "short"), textIs(p, "side", "sell") && !textIs(p, "trade_side", "close"):
	default:
		return // closing orders carry no presets worth comparing
	}
	check := func(name string, wantAbove bool) {
		v, ok := p.Decimal(name)
		if !ok {
			return
		}
		if wantAbove && v.GreaterThan(price) || !wantAbove && v.LessThan(price) {
			return
		}
		dir := "long"
		if !long {
			dir = "short"
		}
		rel := "above"
		if !wantAbove {
			rel = "below"
		}
		c.f.ErrorAt(keys[name], "swap take_profit and stop_loss?",
			"for a %s order %s must be %s the price %s, got %s", dir, name, rel, price, v)
	}
	check("take_profit", long)
	check("stop_loss", !long)
}

func textIs(p Params, name, want string) bool {
	s, ok := p.Text(name)
	return ok && s == want
}

// MaxRatio rejects a literal trailing ratio above the exchange's largest.
func (c *ActionCheck) MaxRatio(name string) {
	if v, ok := c.params.Decimal(name); ok && v.GreaterThan(decimal.NewFromInt(exchange.MaxCallbackRatio)) {
		c.f.ErrorAt(c.keys[name], fmt.Sprintf("at most %d", exchange.MaxCallbackRatio), "%s is %s percent; the exchange trails by at most %d percent", name, v, exchange.MaxCallbackRatio)
	}
}
