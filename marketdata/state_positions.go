package marketdata

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Position sides a condition can ask for. Net is long minus short: in one-way
// mode it is the account's only position, signed; in hedge mode it is the
// difference of the two sides.
const (
	SideLong  = "long"
	SideShort = "short"
	SideNet   = "net"
)

// Position is a futures position of one symbol and side. Prices are in the
// contract's quote coin, sizes in base coin (contracts), P&L and margin in the
// margin coin. A flat position (size 0) is returned when the positions of its
// product type were fetched and none is open; its other fields need NeedOpen.
type Position struct {
	Symbol           string  `expr:"symbol" json:"symbol"`
	Side             string  `expr:"side" json:"side"`
	ProductType      string  `expr:"product_type" json:"product_type"`
	IsOpen           bool    `expr:"is_open" json:"is_open"`
	Size             float64 `expr:"size" json:"size"`
	UnrealizedPnL    float64 `expr:"unrealized_pnl" json:"unrealized_pnl"`
	Available        float64 `expr:"available" json:"available"`
	EntryPrice       float64 `expr:"entry_price" json:"entry_price"`
	MarkPrice        float64 `expr:"mark_price" json:"mark_price"`
	UnrealizedPnLPct float64 `expr:"unrealized_pnl_pct" json:"unrealized_pnl_pct"`
	ROE              float64 `expr:"roe" json:"roe"`
	Leverage         float64 `expr:"leverage" json:"leverage"`
	MarginMode       string  `expr:"margin_mode" json:"margin_mode"`
	MarginCoin       string  `expr:"margin_coin" json:"margin_coin"`
	Margin           float64 `expr:"margin" json:"margin"`
	LiquidationPrice float64 `expr:"liquidation_price" json:"liquidation_price"`
	BreakEvenPrice   float64 `expr:"break_even_price" json:"break_even_price"`
	PositionMode     string  `expr:"position_mode" json:"position_mode"`
	AgeSeconds       float64 `expr:"age_seconds" json:"age_seconds"`
	// HighSinceOpen and LowSinceOpen are the highest and lowest mark price,
	// and PeakPnL the best unrealised P&L, since the position opened or the
	// engine first saw it. A State holds the current mark and P&L in them;
	// the engine sets what it observed (RememberExtremes).
	HighSinceOpen float64 `expr:"high_since_open" json:"high_since_open"`
	LowSinceOpen  float64 `expr:"low_since_open" json:"low_since_open"`
	PeakPnL       float64 `expr:"peak_pnl" json:"peak_pnl"`

	// At is when the positions of this product type were fetched with this
	// answer; a later poll that brought the same answer does not move it
	// (State.Part has the time of the latest poll). Rules cannot read it,
	// so a trace does not show it.
	At time.Time `json:"-"`

	have Need
	born time.Time // when it was opened, for AgeSeconds (zero: not known)
}

// Has reports whether every requirement in need is met.
func (p *Position) Has(need Need) bool { return need&^p.have == 0 }

type posKey struct{ symbol, side string }

// PositionsInput is one fetch of positions: every position of ProductType
// (all-position), or of one Symbol (single-position).
type PositionsInput struct {
	ProductType exchange.ProductType
	Symbol      string // empty: the fetch covered every symbol of ProductType
	Positions   []exchange.Position
	At          time.Time
}

// parsePosition reads a position record without what follows the fetch
// (At) and the clock (AgeSeconds, from the creation time it returns).
func parsePosition(w *exchange.Position, pt exchange.ProductType) (*Position, time.Time, error) {
	var p numParser
	pos := &Position{
		Symbol:           w.Symbol,
		Side:             string(w.HoldSide),
		ProductType:      string(pt),
		Size:             p.num("total", w.Total),
		Available:        p.num("available", w.Available),
		EntryPrice:       p.num("openPriceAvg", w.OpenPriceAvg),
		MarkPrice:        p.num("markPrice", w.MarkPrice),
		UnrealizedPnL:    p.num("unrealizedPL", w.UnrealizedPL),
		Leverage:         p.num("leverage", w.Leverage),
		MarginMode:       string(w.MarginMode),
		MarginCoin:       w.MarginCoin,
		Margin:           p.num("marginSize", w.MarginSize),
		LiquidationPrice: p.num("liquidationPrice", w.LiquidationPrice),
		BreakEvenPrice:   p.num("breakEvenPrice", w.BreakEvenPrice),
		PositionMode:     string(w.PosMode),
	}
	if p.err != nil {
		return nil, time.Time{}, fmt.Errorf("position %s %s: %w", w.Symbol, w.HoldSide, p.err)
	}
	if pos.Side != SideLong && pos.Side != SideShort {
		return nil, time.Time{}, fmt.Errorf("position %s: holdSide %q is neither long nor short", w.Symbol, w.HoldSide)
	}
	pos.derive()
	pos.HighSinceOpen, pos.LowSinceOpen, pos.PeakPnL = pos.MarkPrice, pos.MarkPrice, pos.UnrealizedPnL
	pos.born = w.CTime.Time()
	return pos, pos.born, nil
}

// OpenedAt is when the venue says the position was opened (zero: not
// known). It tells a new position from an earlier one of the same symbol
// and side.
func (p *Position) OpenedAt() time.Time { return p.born }

// derive computes the P&L ratios once per State. unrealized_pnl_pct is the
// price move in the position's favour relative to the entry price (0.05 = the
// price moved 5% in favour), independent of leverage and margin coin; roe is
// the unrealised P&L over the margin, as the exchange's app shows it.
func (p *Position) derive() {
	p.IsOpen = p.Size != 0
	if !p.IsOpen {
		return
	}
	p.have |= NeedOpen
	if p.EntryPrice > 0 {
		p.UnrealizedPnLPct = moveOf(p.EntryPrice, p.MarkPrice)
		if (p.Side == SideShort || (p.Side == SideNet && p.Size < 0)) && p.UnrealizedPnLPct != 0 {
			p.UnrealizedPnLPct = -p.UnrealizedPnLPct // never -0, which JSON would print
		}
	}
	if p.Margin > 0 {
		p.ROE = quotientOf(p.UnrealizedPnL, p.Margin)
	}
}

// netOf derives the net position of one symbol from its open sides. With one
// side open it is that side, signed; with both open (hedge mode) only size,
// unrealised P&L and is_open have a value.
func netOf(long, short *Position) *Position {
	one := long
	if one == nil {
		one = short
	}
	if long != nil && short != nil {
		return &Position{
			Symbol: long.Symbol, Side: SideNet, ProductType: long.ProductType,
			IsOpen: true, Size: long.Size - short.Size,
			UnrealizedPnL: long.UnrealizedPnL + short.UnrealizedPnL,
			PositionMode:  long.PositionMode, At: long.At,
		}
	}
	net := *one
	net.Side = SideNet
	net.have = 0
	if one.Side == SideShort {
		net.Size, net.Available = -one.Size, -one.Available
	}
	net.derive()
	return &net
}

// Position returns the position of symbol on side (long, short or net). need
// is NeedOpen for the fields that only an open position has. A symbol whose
// product type was fetched and that has no open position is flat, not
// missing.
func (s *State) Position(symbol, side string, need Need) (*Position, error) {
	switch side {
	case SideLong, SideShort, SideNet:
	default:
		return nil, fmt.Errorf("position side must be long, short or net, not %q", side)
	}
	p := s.positionIndex[posKey{symbol, side}]
	if p == nil && side == SideNet {
		if long, short := s.positionIndex[posKey{symbol, SideLong}], s.positionIndex[posKey{symbol, SideShort}]; long != nil || short != nil {
			p = s.flat.net(symbol, long, short)
		}
	}
	if p != nil {
		if need&^p.have == 0 {
			return p, nil // the hot path: no message is built when nothing lacks
		}
		return p, check("position "+symbol+" "+side, p.have, need)
	}
	pt, ok := s.product(symbol)
	if !ok {
		return nil, missing(positionName(symbol, side), "the symbol is not a known futures contract")
	}
	at, ok := covered(s.positionScope, pt, symbol)
	if !ok {
		return nil, missing(positionName(symbol, side), "the positions of "+string(pt)+" were not fetched")
	}
	p = s.flatPosition(symbol, side, pt, at)
	if need&^p.have == 0 {
		return p, nil
	}
	return p, check(positionName(symbol, side), p.have, need)
}

// positionName names a position in a missing-data message; built only when
// one is needed.
func positionName(symbol, side string) string { return "position " + symbol + " " + side }

// flatPosition returns the shared flat position of symbol and side, creating
// it on first use: building one for every contract of every tick would cost
// more than the few the rules ask for. The memo does not change what any
// reader observes, so the State stays immutable in effect.
func (s *State) flatPosition(symbol, side string, pt exchange.ProductType, at time.Time) *Position {
	return s.flat.get(flatKey{posKey{symbol, side}, pt, at.UnixNano()}, at)
}

// flatMemo holds the flat positions and the net ones handed out: made on
// first use, as most rules ask for one side. States whose positions come
// from the same fetches share one (KeepAges), so a flat position is keyed
// by all it is made of; a net one is made from the open sides of those
// fetches.
type flatMemo struct {
	mu   sync.Mutex
	m    map[flatKey]*Position
	nets map[string]*Position // by symbol
}

// net returns the net position of symbol, made from its open sides (one
// may be nil) on first use.
func (f *flatMemo) net(symbol string, long, short *Position) *Position {
	f.mu.Lock()
	defer f.mu.Unlock()
	return kept(&f.nets, symbol, func() *Position { return netOf(long, short) })
}

// kept returns (*m)[k], made with mk and kept there on first use; the
// caller holds the memo's lock.
func kept[K comparable](m *map[K]*Position, k K, mk func() *Position) *Position {
	if p := (*m)[k]; p != nil {
		return p
	}
	if *m == nil {
		*m = map[K]*Position{}
	}
	p := mk()
	(*m)[k] = p
	return p
}

type flatKey struct {
	posKey
	pt exchange.ProductType
	at int64 // the fetch time, in Unix nanoseconds
}

func (f *flatMemo) get(k flatKey, at time.Time) *Position {
	f.mu.Lock()
	defer f.mu.Unlock()
	return kept(&f.m, k, func() *Position {
		return &Position{Symbol: k.symbol, Side: k.side, ProductType: string(k.pt), At: at}
	})
}

// Positions returns every open position (each side separately, never the
// derived net ones), or an error when no positions were fetched.
func (s *State) Positions() ([]*Position, error) {
	if !s.Fetched(PartPositions) {
		return nil, missing("positions", "no positions were fetched")
	}
	return s.positions, nil
}

// PositionsCover reports whether the State's positions come from a fetch of
// every position of product type pt: a position of pt missing from them
// is closed.
func (s *State) PositionsCover(pt exchange.ProductType) bool {
	return slices.ContainsFunc(s.positionScope, func(sc scope) bool { return sc.product == pt && sc.symbol == "" })
}

// covered reports whether a fetch in scopes covered symbol of product pt, and
// the time of the newest such fetch.
func covered(scopes []scope, pt exchange.ProductType, symbol string) (time.Time, bool) {
	var at time.Time
	ok := false
	for _, sc := range scopes {
		if sc.product == pt && (sc.symbol == "" || sc.symbol == symbol) {
			if !ok || sc.at.After(at) {
				at = sc.at
			}
			ok = true
		}
	}
	return at, ok
}
