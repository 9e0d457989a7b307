package actions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"
	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// Pricer gives a reference price for market orders, for the notional guard.
type Pricer interface {
	Ticker(ctx context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error)
}

// ExecutorOptions configure an Executor.
type ExecutorOptions struct {
	Dispatcher *Dispatcher
	Catalog    *rules.Catalog // contracts: precision and product type
	// Modes are the accounts' position modes per product type as read at
	// start; the State's own reading wins when it has one.
	Modes map[exchange.ProductType]exchange.PosMode
	// ModeOf, when set, is used in place of Modes: the mode of pt as the
	// caller knows it now (the engine reads the modes again while it runs,
	// as a trader may switch one in the venue's app), or why it is not
	// known (the order is then refused, never guessed). The State's own
	// reading still wins when it has one.
	ModeOf func(pt exchange.ProductType) (exchange.PosMode, error)
	Pricer Pricer // nil: market orders have no reference price
	Logger *zap.Logger
	// RateLimitBudget is how long Settle keeps sending an order again that
	// the venue refused with 429 (default 60s); the venue did not act on it.
	RateLimitBudget time.Duration
}

// Executor turns the actions of one firing into requests and sends them
// through the Dispatcher, one leg at a time, in the order written.
type Executor struct {
	opts ExecutorOptions
	// kinds are the action kinds' declarations by name (Kinds).
	kinds map[rules.ActionKind]Kind
}

// NewExecutor returns an Executor for opts.
func NewExecutor(opts ExecutorOptions) *Executor {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.RateLimitBudget <= 0 {
		opts.RateLimitBudget = time.Minute
	}
	kinds := map[rules.ActionKind]Kind{}
	for _, k := range Kinds() {
		kinds[k.Name()] = k
	}
	return &Executor{opts: opts, kinds: kinds}
}

// Run executes every action of rule for its firing at `at`: Plan, then Send
// of each planned request, in the order written. Formulas are evaluated
// with m over env, which reads the State of the firing's tick. With a
// dispatcher that defers (DispatcherOptions.Defer), legs may come back
// Unsettled: Settle settles them.
func (x *Executor) Run(ctx context.Context, rule *rules.Rule, at time.Time, env *rules.Env, m *vm.VM, st *marketdata.State) []Leg {
	var legs []Leg
	for _, p := range x.Plan(ctx, rule, at, env, m, st) {
		legs = append(legs, x.Send(ctx, p)...)
	}
	return legs
}

// Plan builds every request of rule's firing at `at` without sending any:
// formulas are evaluated, sizes and prices rounded and client order ids
// derived, so the firing's intent can be recorded before the first order
// leaves. An action that cannot be built (or a log action) is a Plan that
// is already done. Each action is planned by its kind's declaration (Kind).
func (x *Executor) Plan(ctx context.Context, rule *rules.Rule, at time.Time, env *rules.Env, m *vm.VM, st *marketdata.State) []Plan {
	f := &firing{x: x, rule: rule, id: Firing{Rule: rule.Name, At: at}, env: env, vm: m, st: st}
	plans := make([]Plan, 0, len(rule.Actions))
	for _, a := range rule.Actions {
		k, ok := x.kinds[a.Kind]
		if !ok {
			plans = append(plans, f.failed(a, fmt.Errorf("unknown action %q", a.Kind))...)
			continue
		}
		plans = append(plans, k.plan(ctx, f, a)...)
	}
	for i := range plans {
		plans[i].At = at
	}
	return plans
}

// firing holds what one firing's actions share: the leg counter that makes
// every client order id of the firing distinct.
type firing struct {
	x    *Executor
	rule *rules.Rule
	id   Firing
	leg  int
	env  *rules.Env
	vm   *vm.VM
	st   *marketdata.State
}

func (f *firing) nextOID() string {
	oid := ClientOID(f.id, f.leg)
	f.leg++
	return oid
}

// failed is the done Plan of action a that could not be built: nothing is
// sent, and its leg says why.
func (f *firing) failed(a *rules.Action, err error) []Plan {
	kind := string(a.Kind)
	var op exchange.Op
	if k, ok := f.x.kinds[a.Kind]; ok {
		op = k.Op()
	}
	f.x.opts.Logger.Error("action not sent", zap.String("rule", f.rule.Name), zap.String("kind", kind), zap.Error(err))
	return []Plan{{Kind: kind, Op: op, Done: &Leg{Kind: kind, Op: op, Outcome: Failed, Error: err.Error()}}}
}

// contractInfo is what an action needs to know of its contract and account.
type contractInfo struct {
	symbol     string
	pt         exchange.ProductType
	coin       string
	marginMode exchange.MarginMode
	mode       exchange.PosMode
	prec       Precision
}

// productType is the action's product type: written, inherited from the
// file's defaults, or computed by a formula, which must give one the
// exchange knows.
func (f *firing) productType(p params) (exchange.ProductType, error) {
	s, err := p.text("product_type")
	if err != nil {
		return "", err
	}
	if s == "" {
		return exchange.USDTFutures, nil
	}
	if !slices.Contains(exchange.ProductTypes(), exchange.ProductType(s)) {
		return "", fmt.Errorf("product_type: %q is not a product type (%s)", s, productTypeNames())
	}
	return exchange.ProductType(s), nil
}

func productTypeNames() string {
	var names []string
	for _, pt := range exchange.ProductTypes() {
		names = append(names, string(pt))
	}
	return strings.Join(names, ", ")
}

// contract resolves the symbol (or the for_each symbol), its product type,
// margin coin and mode, the account's position mode and the precision.
func (f *firing) contract(p params) (contractInfo, error) {
	var c contractInfo
	sym, err := p.text("symbol")
	if err != nil {
		return c, err
	}
	if sym == "" {
		sym = f.rule.Symbol
	}
	if sym == "" {
		return c, errors.New("symbol: no symbol given")
	}
	c.symbol = sym
	pc, ok := f.x.opts.Catalog.Contract(sym)
	if !ok {
		return c, fmt.Errorf("symbol %s: not a known contract", sym)
	}
	if c.pt, err = f.productType(p); err != nil {
		return c, err
	}
	if pc.ProductType != "" && p.ps["product_type"] == nil {
		c.pt = pc.ProductType
	}
	if c.coin, err = p.text("margin_coin"); err != nil {
		return c, err
	}
	if c.coin == "" {
		c.coin = defaultMarginCoin(c.pt, pc.Contract)
	}
	mm, _ := p.text("margin_mode")
	c.marginMode = exchange.MarginMode(mm)
	if c.marginMode == "" {
		c.marginMode = exchange.Crossed
	}
	if c.prec, err = PrecisionOf(pc.Contract); err != nil {
		return c, err
	}
	c.mode, err = f.mode(c.pt)
	return c, err
}

func defaultMarginCoin(pt exchange.ProductType, c exchange.Contract) string {
	switch pt {
	case exchange.USDCFutures:
		return "USDC"
	case exchange.COINFutures:
		return strings.ToUpper(c.BaseCoin)
	}
	return "USDT"
}

// mode is the account's position mode for pt: the State's reading of the
// tick if it has one, else ModeOf's, else the reading at start.
func (f *firing) mode(pt exchange.ProductType) (exchange.PosMode, error) {
	if f.st != nil {
		if m, err := f.st.PositionMode(pt); err == nil && m != "" {
			return exchange.PosMode(m), nil
		}
	}
	if f.x.opts.ModeOf != nil {
		return f.x.opts.ModeOf(pt)
	}
	if m, ok := f.x.opts.Modes[pt]; ok {
		return m, nil
	}
	return "", fmt.Errorf("position mode of %s is not known (accounts not read)", pt)
}

// order builds one order from its item parameters (item) and the action's
// contract parameters (act); prefix names batch items in errors.
func (f *firing) order(ctx context.Context, act, item params, prefix string) (exchange.PlaceOrderRequest, OrderCheck, error) {
	var req exchange.PlaceOrderRequest
	var check OrderCheck
	c, err := f.contract(act)
	if err != nil {
		return req, check, err
	}
	req = exchange.PlaceOrderRequest{Symbol: c.symbol, ProductType: c.pt, MarginMode: c.marginMode, MarginCoin: c.coin, Mode: c.mode, ClientOID: f.nextOID()}
	var econ exchange.Side // the economic direction: buy adds long exposure
	openDir, _ := item.text("open")
	closeDir, _ := item.text("close")
	switch {
	case openDir != "" || closeDir != "":
		in := Intent{Dir: exchange.HoldSide(openDir)}
		if closeDir != "" {
			in = Intent{Close: true, Dir: exchange.HoldSide(closeDir)}
		}
		mp, err := Map(in, c.mode)
		if err != nil {
			return req, check, fmt.Errorf("%sopen/close: %w", prefix, err)
		}
		req.Side, req.TradeSide, req.ReduceOnly = mp.Side, mp.TradeSide, mp.ReduceOnly
		econ = exchange.Buy
		if (in.Dir == exchange.Short) != in.Close {
			econ = exchange.Sell
		}
		check.Reducing = in.Close
		if pos, err := f.st.Position(c.symbol, string(in.Dir), 0); err == nil && !in.Close {
			check.PositionAfter = decimal.NewFromFloat(pos.Size)
		}
	default:
		s, _ := item.text("side")
		ts, _ := item.text("trade_side")
		req.Side, req.TradeSide = exchange.Side(s), exchange.TradeSide(ts)
		if ro, ok := item.flag("reduce_only"); ok && ro {
			req.ReduceOnly = exchange.Yes
		}
		econ = req.Side
		if req.TradeSide == exchange.Close {
			econ = req.Side.Opposite()
		}
		check.Reducing = req.ReduceOnly == exchange.Yes || req.TradeSide == exchange.Close
	}
	ot, _ := item.text("type")
	req.OrderType = exchange.OrderType(ot)
	force, _ := item.text("force")
	req.Force = exchange.Force(force)
	stp, _ := item.text("stp_mode")
	req.STPMode = exchange.STPMode(stp)
	size, err := item.number("size")
	if err != nil {
		return req, check, fmt.Errorf("%s%w", prefix, err)
	}
	if size, err = c.prec.RoundSize(size); err != nil {
		return req, check, fmt.Errorf("%ssize: %w", prefix, err)
	}
	req.Size = exchange.NumOf(size)
	check.Symbol, check.Size = c.symbol, size
	check.PositionAfter = check.PositionAfter.Add(size)
	if item.has("price") {
		price, err := item.number("price")
		if err != nil {
			return req, check, fmt.Errorf("%s%w", prefix, err)
		}
		if price, err = c.prec.RoundPrice(price, econ); err != nil {
			return req, check, fmt.Errorf("%sprice: %w", prefix, err)
		}
		req.Price, check.Price = exchange.NumOf(price), price
	} else {
		check.Price = f.referencePrice(ctx, c)
	}
	for name, dst := range map[string]*exchange.Num{"take_profit": &req.PresetStopSurplusPrice, "stop_loss": &req.PresetStopLossPrice} {
		if !item.has(name) {
			continue
		}
		v, err := item.number(name)
		if err != nil {
			return req, check, fmt.Errorf("%s%w", prefix, err)
		}
		if v, err = c.prec.RoundPriceNearest(v); err != nil {
			return req, check, fmt.Errorf("%s%s: %w", prefix, name, err)
		}
		*dst = exchange.NumOf(v)
	}
	return req, check, nil
}

// referencePrice is the last price of a market order's contract, for the
// notional guard; zero when it cannot be read (the guard then refuses a
// market order that a notional limit applies to).
func (f *firing) referencePrice(ctx context.Context, c contractInfo) decimal.Decimal {
	if f.x.opts.Pricer == nil {
		return decimal.Zero
	}
	ts, err := f.x.opts.Pricer.Ticker(ctx, exchange.TickerRequest{Symbol: c.symbol, ProductType: c.pt})
	if err != nil || len(ts) == 0 {
		f.x.opts.Logger.Warn("no reference price for a market order", zap.String("symbol", c.symbol), zap.Error(err))
		return decimal.Zero
	}
	p, err := ts[0].LastPr.Decimal()
	if err != nil || !p.IsPositive() {
		return decimal.Zero
	}
	return p
}

func (f *firing) modify(p params) (exchange.ModifyOrderRequest, error) {
	var req exchange.ModifyOrderRequest
	c, err := f.contract(p)
	if err != nil {
		return req, err
	}
	req = exchange.ModifyOrderRequest{Symbol: c.symbol, ProductType: c.pt, NewClientOID: f.nextOID()}
	if req.OrderID, err = p.text("order_id"); err != nil {
		return req, err
	}
	if req.ClientOID, err = p.text("client_oid"); err != nil {
		return req, err
	}
	if p.has("new_size") {
		v, err := p.number("new_size")
		if err != nil {
			return req, err
		}
		if v, err = c.prec.RoundSize(v); err != nil {
			return req, fmt.Errorf("new_size: %w", err)
		}
		req.NewSize = exchange.NumOf(v)
	}
	for name, dst := range map[string]*exchange.Num{"new_price": &req.NewPrice, "new_take_profit": &req.NewPresetStopSurplusPrice, "new_stop_loss": &req.NewPresetStopLossPrice} {
		if !p.has(name) {
			continue
		}
		v, err := p.number(name)
		if err != nil {
			return req, err
		}
		if v.IsZero() && name != "new_price" {
			*dst = "0" // 0 deletes a preset
			continue
		}
		if v, err = c.prec.RoundPriceNearest(v); err != nil {
			return req, fmt.Errorf("%s: %w", name, err)
		}
		*dst = exchange.NumOf(v)
	}
	return req, nil
}

// message renders the message of a log or notify action: its text with
// each {{ formula }} replaced by its value (or by the error, so that a
// message is never lost to a formula).
func (f *firing) message(a *rules.Action) string {
	var b strings.Builder
	if a.Message != nil {
		for _, part := range a.Message.Parts {
			if part.Formula == nil {
				b.WriteString(part.Text)
				continue
			}
			v, err := part.Formula.Eval(f.vm, f.env)
			if err != nil {
				fmt.Fprintf(&b, "<%s: %v>", part.Source, err)
				continue
			}
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// params reads action parameters, evaluating formulas over the firing's State.
type params struct {
	f  *firing
	ps rules.Params
}

func (p params) has(name string) bool { return p.ps[name] != nil }

// text returns a text parameter ("" when absent).
func (p params) text(name string) (string, error) {
	v := p.ps[name]
	if v == nil {
		return "", nil
	}
	if v.IsFormula() {
		s, err := v.Formula.EvalString(p.f.vm, p.f.env)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return s, nil
	}
	s, _ := v.Literal.(string)
	return s, nil
}

// number returns a number parameter as a decimal. A formula's float result
// goes through its shortest decimal form, so 0.1+0.2 is sent as 0.3 after
// rounding to the contract, never as 0.30000000000000004.
func (p params) number(name string) (decimal.Decimal, error) {
	v := p.ps[name]
	if v == nil {
		return decimal.Zero, fmt.Errorf("%s: missing", name)
	}
	if !v.IsFormula() {
		d, ok := v.Literal.(decimal.Decimal)
		if !ok {
			return decimal.Zero, fmt.Errorf("%s: not a number", name)
		}
		return d, nil
	}
	x, err := v.Formula.EvalNumber(p.f.vm, p.f.env)
	if err != nil {
		return decimal.Zero, fmt.Errorf("%s: %w", name, err)
	}
	d := decimal.NewFromFloat(x)
	if !d.IsPositive() && !d.IsZero() {
		return decimal.Zero, fmt.Errorf("%s: the formula gave %s; it must not be negative", name, d)
	}
	return d, nil
}

func (p params) flag(name string) (bool, bool) {
	v := p.ps[name]
	if v == nil {
		return false, false
	}
	b, ok := v.Literal.(bool)
	return b, ok
}

// ids returns a list of ids: written, or computed by a formula (whose
// empty items are an error rather than ids the venue would reject).
func (p params) ids(name string) ([]string, error) {
	v := p.ps[name]
	if v == nil {
		return nil, nil
	}
	if !v.IsFormula() {
		ids, _ := v.Literal.([]string)
		return ids, nil
	}
	ids, err := v.Formula.EvalTextList(p.f.vm, p.f.env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if i := slices.Index(ids, ""); i >= 0 {
		return nil, fmt.Errorf("%s: the formula gave an empty id as item %d", name, i+1)
	}
	return ids, nil
}
