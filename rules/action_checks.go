package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// actionCheck carries what the rules between an action's parameters need:
// the parameters given, where their keys are, where the action starts and
// the account's position mode when it is known.
type actionCheck struct {
	f      *fileLoader
	def    *ActionDef
	params Params
	keys   map[string]rulefmt.Pos
	at     rulefmt.Pos
	mode   exchange.PosMode
}

// where returns the position of parameter name's key, or the action's.
func (c *actionCheck) where(keys map[string]rulefmt.Pos, name string) rulefmt.Pos {
	if p, ok := keys[name]; ok {
		return p
	}
	return c.at
}

func (c *actionCheck) given(names ...string) []string {
	var out []string
	for _, n := range names {
		if _, ok := c.keys[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// exactlyOne requires one and only one of a and b.
func (c *actionCheck) exactlyOne(a, b string) {
	switch g := c.given(a, b); len(g) {
	case 0:
		c.f.errorAt(c.at, "", "%s needs %s or %s", c.def.Kind, a, b)
	case 2:
		c.f.errorAt(c.where(c.keys, b), fmt.Sprintf("remove %s or %s", a, b), "give %s or %s, not both", a, b)
	}
}

// together requires a and b both or neither.
func (c *actionCheck) together(a, b string) {
	if g := c.given(a, b); len(g) == 1 {
		missing := a
		if g[0] == a {
			missing = b
		}
		c.f.errorAt(c.where(c.keys, g[0]), "the exchange changes size and price at once; add "+missing,
			"%s must be given together with %s", g[0], missing)
	}
}

// atLeastOne requires one of names.
func (c *actionCheck) atLeastOne(names ...string) {
	if len(c.given(names...)) == 0 {
		c.f.errorAt(c.at, "give "+strings.Join(names, ", "), "%s changes nothing", c.def.Kind)
	}
}

// checkOrderItem checks one order (place_order, or an item of batch_place):
// what it does (open/close/side), the raw fields that go with side, the
// position mode, price against order type, and preset prices against price.
func (c *actionCheck) checkOrderItem(p Params, keys map[string]rulefmt.Pos, at rulefmt.Pos) {
	has := func(n string) bool { _, ok := keys[n]; return ok }
	var intents []string
	for _, n := range []string{"open", "close", "side"} {
		if has(n) {
			intents = append(intents, n)
		}
	}
	switch len(intents) {
	case 0:
		c.f.errorAt(at, "add open: long, open: short, close: long or close: short",
			"the order does not say what it does")
	case 1:
	default:
		c.f.errorAt(c.where(keys, intents[1]), "keep one of them; open/close are mapped to side for you",
			"give only one of %s", strings.Join(intents, " and "))
	}
	if !has("side") {
		for _, raw := range []string{"trade_side", "reduce_only"} {
			if has(raw) && len(intents) == 1 {
				c.f.errorAt(keys[raw], "remove it; with "+intents[0]+": the engine sets it from the position mode",
					"%s only goes with side", raw)
			}
		}
	}
	switch c.mode {
	case exchange.OneWayMode:
		if has("trade_side") {
			c.f.errorAt(keys["trade_side"], "remove trade_side, or use open:/close: which work in both modes",
				"trade_side is not allowed in one-way mode (the exchange rejects it)")
		}
	case exchange.HedgeMode:
		if has("reduce_only") {
			c.f.errorAt(keys["reduce_only"], "use close: long or close: short to reduce a position",
				"reduce_only is for one-way mode; this account is in hedge mode")
		}
		if has("side") && !has("trade_side") {
			c.f.errorAt(keys["side"], "add trade_side: open or close, or use open:/close:",
				"in hedge mode side needs trade_side")
		}
	}
	typ, _ := p.Text("type")
	switch typ {
	case string(exchange.Limit):
		if !has("price") {
			c.f.errorAt(c.where(keys, "type"), "add price:, or use type: market", "a limit order needs price")
		}
	case string(exchange.Market):
		if has("price") {
			c.f.errorAt(keys["price"], "remove price, or use type: limit", "a market order takes no price")
		}
		if has("force") {
			c.f.errorAt(keys["force"], "remove force; it only applies to limit orders", "a market order takes no force")
		}
	}
	c.checkPresets(p, keys)
}

// checkPresets compares literal take-profit and stop-loss prices with a
// literal limit price: for a long they must be above and below it.
func (c *actionCheck) checkPresets(p Params, keys map[string]rulefmt.Pos) {
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
		c.f.errorAt(keys[name], "swap take_profit and stop_loss?",
			"for a %s order %s must be %s the price %s, got %s", dir, name, rel, price, v)
	}
	check("take_profit", long)
	check("stop_loss", !long)
}

func textIs(p Params, name, want string) bool {
	s, ok := p.Text(name)
	return ok && s == want
}

// checkReverse checks reverse_position against the position mode.
func (c *actionCheck) checkReverse() {
	switch c.mode {
	case exchange.HedgeMode:
		if len(c.given("side")) == 0 {
			c.f.errorAt(c.at, "add side: long or side: short", "in hedge mode reverse_position needs the side of the position to reverse")
		}
	case exchange.OneWayMode:
		if len(c.given("size")) > 0 {
			c.f.warn(c.keys["size"], "remove size; in one-way mode the whole position is reversed",
				"size is ignored in one-way mode")
		}
	}
}

// warn records a warning at p.
func (f *fileLoader) warn(p rulefmt.Pos, hint, msg string) {
	f.errs = append(f.errs, f.src.ErrorAt(p, rulefmt.SeverityWarning, msg, hint))
}

// checkClose warns about a side that one-way mode ignores.
func (c *actionCheck) checkClose() {
	if c.mode == exchange.OneWayMode && len(c.given("side")) > 0 {
		c.f.warn(c.keys["side"], "remove side; in one-way mode the position of the symbol is closed",
			"side is ignored in one-way mode")
	}
}

// checkCancelAll rejects a margin coin written beside a list of product
// types: one coin cannot belong to USDT- and USDC-margined futures at once.
func (c *actionCheck) checkCancelAll() {
	v := c.params["product_type"]
	if v == nil {
		return
	}
	if pts, ok := v.Literal.([]string); ok && len(pts) > 1 && len(c.given("margin_coin")) > 0 {
		c.f.errorAt(c.where(c.keys, "margin_coin"), "leave margin_coin out, or write one cancel_all per product type",
			"margin_coin applies to one product type, but product_type lists %d", len(pts))
	}
}

// checkProtect requires something to protect with, one way of trailing, an
// activation price only for a trail, and a ratio the exchange takes.
func (c *actionCheck) checkProtect() {
	if len(c.given("take_profit", "stop_loss", "trailing_ratio", "trailing_distance")) == 0 {
		c.f.errorAt(c.at, "add stop_loss: PRICE, take_profit: PRICE or trailing_ratio: PERCENT",
			"protect needs take_profit, stop_loss, trailing_ratio or trailing_distance")
	}
	if g := c.given("trailing_ratio", "trailing_distance"); len(g) == 2 {
		c.f.errorAt(c.where(c.keys, g[1]), "keep one: the exchange trails by one amount", "give trailing_ratio or trailing_distance, not both")
	}
	if len(c.given("activation_price")) > 0 && len(c.given("trailing_ratio", "trailing_distance")) == 0 {
		c.f.errorAt(c.keys["activation_price"], "add trailing_ratio or trailing_distance, or remove activation_price",
			"activation_price only goes with a trailing stop")
	}
	c.maxRatio("trailing_ratio")
}

// checkTrigger checks a trailing trigger: a market order, at most 10 percent.
func (c *actionCheck) checkTrigger() {
	if len(c.given("trailing_ratio")) == 0 {
		return
	}
	if typ, _ := c.params.Text("type"); typ == string(exchange.Limit) || len(c.given("price")) > 0 {
		c.f.errorAt(c.keys["trailing_ratio"], "use type: market without price, or remove trailing_ratio",
			"a trailing trigger places a market order")
	}
	c.maxRatio("trailing_ratio")
}

// maxRatio rejects a literal trailing ratio above the exchange's largest.
func (c *actionCheck) maxRatio(name string) {
	if v, ok := c.params.Decimal(name); ok && v.GreaterThan(decimal.NewFromInt(exchange.MaxCallbackRatio)) {
		c.f.errorAt(c.keys[name], fmt.Sprintf("at most %d", exchange.MaxCallbackRatio), "%s is %s percent; the exchange trails by at most %d percent", name, v, exchange.MaxCallbackRatio)
	}
}

// The ends of a halt (HaltUntil).
const (
	HaltEndOfDay = "end_of_day"
	HaltManual   = "manual"
)

// HaltUntil reads a halt's until: end_of_day, manual, or a positive
// duration (30m, 2h). d is the duration, zero for the two words.
func HaltUntil(s string) (word string, d time.Duration, err error) {
	switch s {
	case HaltEndOfDay, HaltManual:
		return s, 0, nil
	}
	d, err = time.ParseDuration(s)
	if err != nil || d <= 0 {
		return "", 0, fmt.Errorf("until must be end_of_day, manual or a duration such as 30m, not %q", s)
	}
	return "", d, nil
}

// checkHalt checks a halt's until.
func (c *actionCheck) checkHalt() {
	v := c.params["until"]
	if v == nil {
		return
	}
	if v.IsFormula() {
		c.f.errorAt(c.where(c.keys, "until"), "write end_of_day, manual or a duration such as 30m", "until is written as it is, not as a formula")
		return
	}
	s, _ := c.params.Text("until")
	if _, _, err := HaltUntil(s); err != nil {
		c.f.errorAt(c.where(c.keys, "until"), "write end_of_day, manual or a duration such as 30m", "%s", err.Error())
	}
}
