package assemble

import (
	"slices"
	"strings"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/rules"
)

// Demand turns what a rule set reads into what the pollers must fetch. A
// rule with once: per_session needs the market session even if its condition
// does not read it. Product types and categories follow the futures the
// rules name (every product type when a rule reads positions in general),
// and the stock pairs the named ones (every pair in the catalog when a rule
// names one only at run time).
func Demand(rs *rules.RuleSet, cat *rules.Catalog) poll.Demand {
	r := rs.Reads()
	d := poll.Demand{Parts: r.Parts}
	for _, rule := range rs.Rules {
		if rule.Once == rules.OncePerSession {
			d.Parts = d.Parts.Add(marketdata.PartMarket)
		}
	}
	d.StockPairs = append(d.StockPairs, r.Stocks...)
	if r.AllStocks && cat != nil {
		for _, p := range cat.StockPairs {
			d.StockPairs = append(d.StockPairs, p.Symbol)
		}
	}
	d.ProductTypes = append(d.ProductTypes, r.ProductTypes...)
	if r.AllFutures || (len(d.ProductTypes) == 0 && (d.Parts.Has(marketdata.PartPositions) || d.Parts.Has(marketdata.PartOrders) || d.Parts.Has(marketdata.PartBalances) ||
		d.Parts.Has(marketdata.PartClosedTrades))) {
		d.ProductTypes = exchange.ProductTypes()
	}
	if d.Parts.Has(marketdata.PartStrategyOrders) {
		for _, pt := range d.ProductTypes {
			d.Categories = append(d.Categories, pt.Category())
		}
	}
	if d.Parts.Has(marketdata.PartTicker) || d.Parts.Has(marketdata.PartFuturesBook) {
		markets := r.Markets
		if r.AllFutures && cat != nil { // a symbol known only at run time
			markets = nil
			for _, c := range cat.Contracts {
				markets = append(markets, c.Symbol)
			}
		}
		d.Contracts = contractsOf(markets, cat)
	}
	d.StockPairs = uniq(d.StockPairs)
	d.ProductTypes = uniq(d.ProductTypes)
	d.Categories = uniq(d.Categories)
	return d
}

// demand is Demand with what the safety file's protections read
// (Protections.Parts) of their product types, whether or not a rule reads
// them.
func (a *Assembly) demand(rs *rules.RuleSet, cat *rules.Catalog) poll.Demand {
	d := Demand(rs, cat)
	if a.safety == nil || !a.safety.Protections.Any() {
		return d
	}
	d.Parts = d.Parts.Union(a.safety.Protections.Parts())
	d.ProductTypes = uniq(append(d.ProductTypes, a.safety.Protections.ProductTypes()...))
	return d
}

// contractsOf are the futures contracts named, with the product type the
// catalog gives them (USDT-FUTURES without a catalog: the checker has
// already rejected a symbol the catalog does not know).
func contractsOf(symbols []string, cat *rules.Catalog) []poll.Contract {
	out := make([]poll.Contract, 0, len(symbols))
	for _, s := range symbols {
		pt := exchange.USDTFutures
		if c, ok := cat.Contract(s); ok {
			pt = c.ProductType
		}
		out = append(out, poll.Contract{ProductType: pt, Symbol: s})
	}
	slices.SortFunc(out, func(a, b poll.Contract) int { return strings.Compare(a.Symbol, b.Symbol) })
	return slices.Compact(out)
}

func uniq[T ~string](xs []T) []T {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// FuturesSymbols lists every futures symbol the rule set names: in
// conditions, in formulas, as for_each symbols and as the literal symbol of
// an action. A dry run prices exactly these from the venue.
func FuturesSymbols(rs *rules.RuleSet) []string {
	out := append([]string(nil), rs.Reads().Futures...)
	for _, r := range rs.Rules {
		if r.Symbol != "" {
			out = append(out, r.Symbol)
		}
		for _, a := range r.Actions {
			if s, ok := a.Params.Text("symbol"); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return uniq(out)
}
