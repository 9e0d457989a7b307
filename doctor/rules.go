package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/assemble"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// productUse is what the rules do in one product type.
type productUse struct {
	productType exchange.ProductType
	// symbols are the futures symbols the rules trade or read, sorted.
	symbols []string
	// all is set when an action reaches every symbol of the product
	// type (cancel_all, close_positions without symbol, a formula symbol).
	all bool
	// trades is set when an action sends orders (any action but log).
	trades bool
	// marginCoin is the first margin coin an action names.
	marginCoin string
	// sizes are the literal order sizes per symbol.
	sizes map[string][]orderSize
}

// orderSize is one literal size an action sends, with its literal price
// when it has one.
type orderSize struct {
	size  decimal.Decimal
	price decimal.Decimal // zero: priced at the market
	at    rules.Position
}

func (u *productUse) touches(sym string) bool { return u.all || slices.Contains(u.symbols, sym) }

func (u *productUse) addSymbol(sym string) {
	if !slices.Contains(u.symbols, sym) {
		u.symbols = append(u.symbols, sym)
		slices.Sort(u.symbols)
	}
}

// productTypes are the product types the rules trade, or USDT-FUTURES.
func (d *run) productTypes() []exchange.ProductType {
	var out []exchange.ProductType
	for _, u := range d.use {
		out = append(out, u.productType)
	}
	if len(out) == 0 {
		out = []exchange.ProductType{exchange.USDTFutures}
	}
	return out
}

// stockPaths reports which path family serves the stock market data.
func (d *run) stockPaths(ctx context.Context) {
	f, err := d.v.StockPathFamily(ctx)
	switch {
	case err != nil:
		d.rep.add(Warn, "stock market data paths", "if your rules read US stock data, check the --venue address; otherwise nothing to do",
			"neither the live venue's nor the spec's paths answer (%v): rules that read the market session or stock pairs will be held", shortError(err))
	case f == exchange.PathsReality:
		d.rep.add(OK, "stock market data paths", "", "the live venue's (/api/v3/reality/...)")
	default:
		d.rep.add(OK, "stock market data paths", "", "the spec's (/api/v3/stock/...), as engine sim serves them")
	}
}

// catalog reads the contracts per product type and the stock pairs. A
// part that cannot be read is reported and the others are still checked.
func (d *run) catalog(ctx context.Context) {
	var contracts []marketdata.ProductContract
	var failed []string
	var firstErr error
	for _, pt := range exchange.ProductTypes() {
		cs, err := d.v.Contracts(ctx, exchange.ContractsRequest{ProductType: pt})
		if err != nil {
			failed = append(failed, string(pt))
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		for _, c := range cs {
			contracts = append(contracts, marketdata.ProductContract{ProductType: pt, Contract: c})
		}
	}
	if len(failed) > 0 {
		d.noContracts = true
		d.rep.add(Fail, "contracts", "check the --venue address and the network, then run doctor again",
			"could not read the %s contracts (%s): the rules' symbols and sizes are not checked", strings.Join(failed, ", "), shortError(firstErr))
	}
	pairs, err := d.v.StockInfo(ctx, exchange.StockInfoRequest{})
	if err != nil {
		d.noStockInfo = err
	}
	d.cat = rules.NewCatalog(contracts, pairs)
}

// rules loads the rules, then checks them against the account: position
// modes, symbols and sizes.
func (d *run) rules(ctx context.Context) {
	if len(d.opts.RuleDirs) == 0 {
		return
	}
	rs, errs := rules.Load(ctx, d.opts.RuleDirs, rules.LoadOptions{Actions: actions.Defs(), Getenv: d.opts.Getenv})
	if rs == nil {
		n, _ := errs.Count()
		d.rep.add(Fail, "rules", "run engine check "+strings.Join(d.opts.RuleDirs, " ")+" for the full list",
			"%s; first: %s", plural(n, "error"), firstError(errs))
		return
	}
	d.rep.add(OK, "rules", "", "%s in %s load", plural(len(rs.Rules), "rule"), plural(len(rs.Files), "file"))
	// Loaded against the venue's catalog, as engine run loads them, the
	// rules name their symbols' product types and the pairs' symbols, which
	// the polling budget follows. A symbol the venue lacks fails that load;
	// the checks below then report it on its own line.
	if withCatalog, _ := rules.Load(ctx, d.opts.RuleDirs, rules.LoadOptions{Actions: actions.Defs(), Catalog: d.cat, Getenv: d.opts.Getenv}); withCatalog != nil {
		rs = withCatalog
	}
	d.rs = rs
	d.use = usesOf(rs, d.cat)
	d.positionModes(ctx)
	d.symbols(ctx)
	d.stockPairs()
}

func firstError(errs rulefmt.Errors) string {
	for _, e := range errs {
		if e.Severity != rulefmt.SeverityWarning {
			return e.Error()
		}
	}
	return "none"
}

// usesOf collects, per product type, the symbols the enabled rules trade
// and read and the literal sizes they send.
func usesOf(rs *rules.RuleSet, cat *rules.Catalog) []productUse {
	by := map[exchange.ProductType]*productUse{}
	get := func(pt exchange.ProductType) *productUse {
		if pt == "" {
			pt = exchange.USDTFutures
		}
		if by[pt] == nil {
			by[pt] = &productUse{productType: pt, sizes: map[string][]orderSize{}}
		}
		return by[pt]
	}
	for _, r := range rs.Rules {
		if !r.Enabled {
			continue
		}
		for _, a := range r.Actions {
			if !actions.Sends(string(a.Kind)) {
				continue // log and notify send nothing to the exchange
			}
			pt, _ := a.Params.Text("product_type")
			u := get(exchange.ProductType(pt))
			u.trades = true
			if mc, ok := a.Params.Text("margin_coin"); ok && u.marginCoin == "" {
				u.marginCoin = mc
			}
			sym, literal := a.Params.Text("symbol")
			if !literal && a.Params["symbol"] == nil {
				sym, literal = r.Symbol, r.Symbol != ""
			}
			if !literal {
				u.all = true
				continue
			}
			u.addSymbol(sym)
			for _, p := range orderParams(a) {
				if s, ok := p.Decimal(sizeParam(a.Kind)); ok {
					price, _ := p.Decimal(priceParam(a.Kind))
					u.sizes[sym] = append(u.sizes[sym], orderSize{size: s, price: price, at: p[sizeParam(a.Kind)].Pos})
				}
			}
		}
		rd := r.Reads()
		syms := rd.Futures
		if rd.SymbolFutures && r.Symbol != "" {
			syms = append(slices.Clone(syms), r.Symbol)
		}
		for _, s := range syms {
			if k, ok := cat.Contract(s); ok {
				get(k.ProductType).addSymbol(s)
			}
		}
	}
	var out []productUse
	for _, pt := range exchange.ProductTypes() {
		if u := by[pt]; u != nil {
			out = append(out, *u)
		}
	}
	return out
}

// orderParams are the parameter sets of an action that carry a size: the
// action's own, or each order of a batch.
func orderParams(a *rules.Action) []rules.Params {
	if a.Kind == actions.BatchPlace {
		return a.Orders
	}
	return []rules.Params{a.Params}
}

func sizeParam(k rules.ActionKind) string {
	if k == actions.ModifyOrder {
		return "new_size"
	}
	return "size"
}

func priceParam(k rules.ActionKind) string {
	if k == actions.ModifyOrder {
		return "new_price"
	}
	return "price"
}

// defaultMarginCoin is the margin coin an action without margin_coin uses.
func defaultMarginCoin(pt exchange.ProductType, c marketdata.ProductContract) string {
	switch pt {
	case exchange.USDCFutures:
		return "USDC"
	case exchange.COINFutures:
		return c.BaseCoin
	}
	return "USDT"
}

// positionModes reads the account's position mode of every product type
// the rules trade and loads the rules again with it: what the loader then
// finds is a rule the account's mode forbids.
func (d *run) positionModes(ctx context.Context) {
	if !d.signed {
		return
	}
	for _, u := range d.use {
		if !u.trades {
			continue
		}
		topic := "position mode " + string(u.productType)
		sym, k := d.sampleContract(u)
		if sym == "" {
			d.rep.add(Warn, topic, "", "unknown: the venue lists no %s contract to ask about", u.productType)
			continue
		}
		mc := u.marginCoin
		if mc == "" {
			mc = defaultMarginCoin(u.productType, k)
		}
		mode, err := d.v.AccountPositionMode(ctx, u.productType, sym, mc)
		if err != nil || mode == "" {
			if err == nil {
				err = errors.New("the venue did not say")
			}
			// Not a blocker: the engine starts without it and refuses this
			// product type's orders (never guessing one-way or hedge) until
			// it reads the mode; the other product types trade.
			d.rep.add(Warn, topic, "run doctor again; if it persists, check the key's futures read permission",
				"could not read the account's position mode (%v): the engine refuses %s orders until it can read it, and checks again every %s; other product types trade",
				shortError(err), u.productType, poll.ModeEvery)
			continue
		}
		_, errs := rules.Load(ctx, d.opts.RuleDirs, rules.LoadOptions{Actions: actions.Defs(), Getenv: d.opts.Getenv,
			PositionModes: map[exchange.ProductType]exchange.PosMode{u.productType: mode}})
		var clash *rulefmt.Error
		for _, e := range errs {
			if e.Severity != rulefmt.SeverityWarning {
				clash = e
				break
			}
		}
		if clash == nil {
			d.rep.add(OK, topic, "", "%s; the rules fit it", mode)
			continue
		}
		fix := "switch the account's " + string(u.productType) + " position mode in the exchange's futures settings (possible only with no open positions or orders), or change the rule"
		if clash.Hint != "" {
			fix += ": " + clash.Hint
		}
		d.rep.add(Fail, topic, fix, "the account is in %s, which a rule does not fit: %s", mode, clash.Error())
	}
}

// sampleContract picks the contract to ask the position mode about: the
// first the rules trade, or the first of the product type.
func (d *run) sampleContract(u productUse) (string, marketdata.ProductContract) {
	for _, s := range u.symbols {
		if k, ok := d.cat.Contract(s); ok && k.ProductType == u.productType {
			return s, k
		}
	}
	for _, k := range d.cat.Contracts {
		if k.ProductType == u.productType {
			return k.Symbol, k
		}
	}
	return "", marketdata.ProductContract{}
}

// symbols checks every futures symbol the rules name: it exists, trades,
// and the literal sizes reach its minimum size and order value.
func (d *run) symbols(ctx context.Context) {
	if d.noContracts {
		return // reported once by catalog
	}
	for _, u := range d.use {
		for _, sym := range u.symbols {
			d.symbol(ctx, u, sym)
		}
	}
}

func (d *run) symbol(ctx context.Context, u productUse, sym string) {
	topic := "symbol " + sym
	k, ok := d.cat.Contract(sym)
	if !ok {
		d.notOnVenue(topic, "contract", "symbol", d.cat.SuggestContract(sym))
		return
	}
	if k.ProductType != u.productType {
		d.rep.add(Fail, topic, "set product_type: "+string(k.ProductType)+" in the file's defaults or on the action",
			"is a %s contract, but the rules trade it as %s", k.ProductType, u.productType)
		return
	}
	switch k.SymbolStatus {
	case exchange.SymbolNormal, "":
	case exchange.SymbolListed:
		d.rep.add(Warn, topic, "wait until the contract trades, or leave it out of the rules for now",
			"listed but not trading yet: orders are refused until it opens")
		return
	default:
		d.rep.add(Fail, topic, "leave the contract out of the rules until the exchange trades it normally again",
			"status %s: the exchange does not take orders on it normally", k.SymbolStatus)
		return
	}
	prec, err := actions.PrecisionOf(k.Contract)
	if err != nil {
		d.rep.add(Warn, topic, "run doctor again", "the venue's contract data cannot be read (%v)", err)
		return
	}
	detail := fmt.Sprintf("%s, trading; minimum %s %s", u.productType, prec.MinSize, k.BaseCoin)
	if prec.MinNotional.IsPositive() {
		detail += fmt.Sprintf(" and %s %s per order", prec.MinNotional, quoteOf(k))
	}
	sizes := u.sizes[sym]
	if len(sizes) == 0 {
		d.rep.add(OK, topic, "", "%s; the rules send no literal size (a formula size is checked when it fires)", detail)
		return
	}
	var market decimal.Decimal
	for _, s := range sizes {
		rounded, err := prec.RoundSize(s.size)
		if errors.Is(err, actions.ErrBelowMinimum) {
			d.rep.add(Fail, topic, fmt.Sprintf("raise the size at %s to at least %s", s.at, prec.MinSize),
				"%s; the rules send %s, which the engine cannot send (%v)", detail, s.size, err)
			return
		}
		price := s.price
		if price.IsZero() && prec.MinNotional.IsPositive() {
			if market.IsZero() {
				if market, err = d.lastPrice(ctx, u.productType, sym); err != nil {
					d.rep.add(Warn, topic, "run doctor again", "%s; could not price the rules' sizes (%v)", detail, shortError(err))
					return
				}
			}
			price = market
		}
		if value := rounded.Mul(price); prec.MinNotional.IsPositive() && value.LessThan(prec.MinNotional) {
			d.rep.add(Fail, topic, fmt.Sprintf("raise the size at %s so that size times price is at least %s %s", s.at, prec.MinNotional, quoteOf(k)),
				"%s; the rules send %s, worth %s %s at %s: the exchange refuses it", detail, rounded, value.Round(2), quoteOf(k), price)
			return
		}
	}
	smallest := slices.MinFunc(sizes, func(a, b orderSize) int { return a.size.Cmp(b.size) })
	d.rep.add(OK, topic, "", "%s; the rules send %s at least", detail, smallest.size)
}

// notOnVenue reports a name the rules use that the venue does not list,
// with the closest name it does list.
func (d *run) notOnVenue(topic, kind, name, suggestion string) {
	fix := "correct the " + name + " in the rules"
	if suggestion != "" {
		fix += " (did you mean " + suggestion + "?)"
	}
	d.rep.add(Fail, topic, fix, "not a %s on this venue: the engine would refuse the rules", kind)
}

func quoteOf(k marketdata.ProductContract) string {
	if k.QuoteCoin != "" {
		return k.QuoteCoin
	}
	return "USDT"
}

// lastPrice is the contract's last traded price, to value market orders.
func (d *run) lastPrice(ctx context.Context, pt exchange.ProductType, sym string) (decimal.Decimal, error) {
	ts, err := d.v.Ticker(ctx, exchange.TickerRequest{Symbol: sym, ProductType: pt})
	if err != nil {
		return decimal.Zero, err
	}
	if len(ts) == 0 {
		return decimal.Zero, errors.New("the venue sent no ticker")
	}
	p, err := ts[0].LastPr.Decimal()
	if err != nil || !p.IsPositive() {
		return decimal.Zero, fmt.Errorf("the ticker's last price %q is not a price", ts[0].LastPr)
	}
	return p, nil
}

// stockPairs checks every stock pair the rules name.
func (d *run) stockPairs() {
	names := slices.Clone(d.rs.Reads().Stocks)
	for _, r := range d.rs.Rules {
		if r.Reads().SymbolStock && r.Symbol != "" {
			names = append(names, r.Symbol)
		}
	}
	if len(names) == 0 {
		return
	}
	if d.noStockInfo != nil {
		d.rep.add(Warn, "stock pairs", "run doctor again; if it persists, check the --venue address",
			"could not read the stock pairs (%s): the %s the rules name are not checked", shortError(d.noStockInfo), plural(len(names), "stock name"))
		return
	}
	// A pair named by its code and by its symbol is checked once.
	for i, name := range names {
		if p, ok := d.cat.StockPair(name); ok {
			names[i] = p.Symbol
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		topic := "stock pair " + name
		p, ok := d.cat.StockPair(name)
		if !ok {
			d.notOnVenue(topic, "stock pair", "stock name", d.cat.SuggestStockPair(name))
			continue
		}
		d.rep.add(OK, topic, "", "%s (%s)", p.Code, p.Name)
	}
}

// budget compares the polling the rules need with the rate limits.
func (d *run) budget() {
	if d.rs == nil {
		return
	}
	b, err := rules.PollingBudget(assemble.Demand(d.rs, d.cat))
	if err != nil {
		d.rep.add(Fail, "polling budget", "report this as a bug, with the rule files", "cannot be planned (%v)", err)
		return
	}
	if len(b.Lines) == 0 {
		d.rep.add(OK, "polling budget", "", "the rules poll nothing")
		return
	}
	// The engine also reads the position mode of every product type it
	// trades again every poll.ModeEvery: counted with the operation's
	// polls, so that a limit it tips over is named.
	traded := 0
	for _, u := range d.use {
		if u.trades {
			traded++
		}
	}
	modes := poll.ModeBudget(traded)
	for i, l := range b.Lines {
		b.Lines[i].PerSecond += modes[l.Op]
	}
	var over, near []string
	busiest, share := b.Lines[0], 0.0
	for _, l := range b.Lines {
		s := l.PerSecond / l.Limit
		desc := fmt.Sprintf("%s %s of %s req/s", l.Op, rate(l.PerSecond), rate(l.Limit))
		switch {
		case s > 1:
			over = append(over, desc)
		case s >= 0.8:
			near = append(near, desc)
		}
		if s > share {
			busiest, share = l, s
		}
	}
	switch {
	case len(over) > 0:
		d.rep.add(Fail, "polling budget", "name fewer stock pairs or symbols in the rules, or split them over several accounts",
			"the rules need more requests than the venue allows: %s", strings.Join(over, ", "))
	case len(near) > 0:
		d.rep.add(Warn, "polling budget", "leave headroom for orders: name fewer stock pairs or symbols",
			"close to the rate limits: %s", strings.Join(near, ", "))
	default:
		d.rep.add(OK, "polling budget", "", "%s, the busiest: %s %s of %s req/s (per %s)",
			plural(len(b.Lines), "operation"), busiest.Op, rate(busiest.PerSecond), rate(busiest.Limit), busiest.Scope)
	}
}

func rate(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) }

// stockAccess tries the stock order book and the platform fills when a
// rule reads them: the live venue gives them to whitelisted accounts only.
// A refusal holds only the rules that read them.
func (d *run) stockAccess(ctx context.Context) {
	if d.rs == nil {
		return
	}
	for _, part := range []marketdata.Part{marketdata.PartStockBook, marketdata.PartStockTrades} {
		what := map[marketdata.Part]string{marketdata.PartStockBook: "stock order books", marketdata.PartStockTrades: "stock fills"}[part]
		topic := "access to " + what
		var readers []string
		for _, r := range d.rs.Rules {
			if r.Enabled && r.Reads().Parts.Has(part) {
				readers = append(readers, r.Name)
			}
		}
		if len(readers) == 0 {
			continue
		}
		if !d.signed {
			continue
		}
		pair := d.firstPair()
		if pair == "" {
			d.rep.add(Warn, topic, "", "not checked: no stock pair to ask about")
			continue
		}
		var err error
		if part == marketdata.PartStockBook {
			_, err = d.v.StockOrderBook(ctx, exchange.StockOrderBookRequest{Symbol: pair})
		} else {
			_, err = d.v.StockFills(ctx, exchange.StockFillsRequest{Symbol: pair, Limit: 1})
		}
		held := fmt.Sprintf("%s will be held (everything else trades)", ruleList(readers))
		switch {
		case err == nil:
			d.rep.add(OK, topic, "", "readable (%s)", pair)
		case refused(err):
			d.rep.add(Warn, topic, "ask the exchange to whitelist the account for stock data, or change those rules not to read it",
				"refused (%s): the venue gives them to whitelisted accounts only; %s", shortError(err), held)
		default:
			d.rep.add(Warn, topic, "run doctor again", "could not read them (%s); if this persists, %s", shortError(err), held)
		}
	}
}

// refused reports the venue's answers to an account without access: the
// exchange client's one list of them (exchange.ErrForbidden).
func refused(err error) bool { return errors.Is(err, exchange.ErrForbidden) }

// firstPair is the first stock pair the rules read, as a pair symbol.
func (d *run) firstPair() string {
	dm := assemble.Demand(d.rs, d.cat)
	if len(dm.StockPairs) == 0 {
		return ""
	}
	s := dm.StockPairs[0]
	if p, ok := d.cat.StockPair(s); ok {
		return p.Symbol
	}
	return s
}

func ruleList(names []string) string {
	const show = 3
	if len(names) == 1 {
		return "rule " + names[0]
	}
	if len(names) > show {
		return fmt.Sprintf("rules %s and %d more", strings.Join(names[:show], ", "), len(names)-show)
	}
	return "rules " + strings.Join(names, ", ")
}
