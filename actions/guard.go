package actions

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/rules"
)

// Sentinel errors of the risk guards; a blocked order wraps one of them.
var (
	ErrKillSwitch      = errors.New("kill switch is on: no new orders (cancels and closes still run)")
	ErrSymbolNotAllow  = errors.New("symbol is not in allowed_symbols of the safety file")
	ErrOrderTooLarge   = errors.New("order size above max_order_size")
	ErrNotionalTooHigh = errors.New("order notional above max_notional")
	ErrPositionTooBig  = errors.New("resulting position above max_position")
	ErrTooManyOrders   = errors.New("more than max_orders_per_minute orders")
	ErrNoPrice         = errors.New("no reference price to check max_notional against")
	ErrSizeUnknown     = errors.New("order size or resulting position not known to check the limits against")
	ErrCooldownLoss    = errors.New("cooldown_after_loss of the safety file: a position of this symbol closed at a loss")
)

// Limits are the per-symbol limits of the safety file. A zero limit is no limit.
type Limits struct {
	MaxOrderSize decimal.Decimal `yaml:"max_order_size"` // in base coin, per order
	MaxNotional  decimal.Decimal `yaml:"max_notional"`   // size x price, per order, in quote coin
	MaxPosition  decimal.Decimal `yaml:"max_position"`   // absolute size of the position after the order
}

// Safety is the safety file: limits that rule files cannot override. It is a
// separate file so that whoever writes rules cannot loosen it by accident.
type Safety struct {
	// AllowedSymbols, when not empty, is the only symbols new orders may use.
	AllowedSymbols []string `yaml:"allowed_symbols"`
	// Default applies to every symbol without its own entry in Symbols.
	Default Limits            `yaml:"default"`
	Symbols map[string]Limits `yaml:"symbols"`
	// MaxOrdersPerMinute bounds new orders over any sliding minute (0: none).
	MaxOrdersPerMinute int `yaml:"max_orders_per_minute"`
	// KillSwitchFile: while this file exists no new order is sent.
	KillSwitchFile string `yaml:"kill_switch_file"`
	// Protections stop new entries on the account's own results
	// (protections.go).
	Protections Protections `yaml:"protections"`
}

// LoadSafety reads a safety file strictly: an unknown key is an error that
// names the key probably meant (safety_file.go), so a misspelt limit can
// never be silently ignored.
func LoadSafety(path string) (*Safety, error) {
	b, err := rules.ReadFile(path) // a regular file only: a named pipe would block the start
	if err != nil {
		return nil, fmt.Errorf("safety file: %w", err)
	}
	s, err := decodeSafety(path, b)
	if err != nil {
		return nil, err
	}
	if err := s.Protections.check(); err != nil {
		return nil, fmt.Errorf("safety file %s: %w", path, err)
	}
	if s.MaxOrdersPerMinute < 0 {
		return nil, fmt.Errorf("safety file %s: max_orders_per_minute must not be negative", path)
	}
	for sym, l := range s.Symbols {
		if l.MaxOrderSize.IsNegative() || l.MaxNotional.IsNegative() || l.MaxPosition.IsNegative() {
			return nil, fmt.Errorf("safety file %s: symbols.%s: limits must not be negative", path, sym)
		}
	}
	return &s, nil
}

// OrderCheck is what the guard needs to know about an order.
type OrderCheck struct {
	Symbol string
	Size   decimal.Decimal // absolute size of the order
	Price  decimal.Decimal // limit price, or the reference price of a market order (zero: unknown)
	// Reducing is true for orders that can only make a position smaller
	// (close intents, reduce-only, close-positions, cancels). They are never
	// blocked: when something goes wrong, getting out must stay possible.
	Reducing bool
	// PositionAfter is the absolute size of the position if the order fills.
	PositionAfter decimal.Decimal
	// SizeUnknown and PositionUnknown say that Size or PositionAfter could
	// not be learned (a modify of an order the State does not show, a
	// reversal of a position it has not fetched): the order is then refused
	// when a limit on that figure applies, rather than checked against a guess.
	SizeUnknown, PositionUnknown bool
}

// GuardOptions configure a Guard.
type GuardOptions struct {
	Safety *Safety // nil: no limits except the kill switch
	Now    func() time.Time
	// FileExists reports whether the kill-switch file exists (default os.Stat).
	FileExists func(path string) bool
	// Halt is a halt restored from the state directory (zero: none), and
	// SaveHalt keeps a new or lifted halt there (nil: kept in memory only,
	// as in backtests and rule tests).
	Halt     Halt
	SaveHalt func(Halt) error
	// EquityPeaks are max_drawdown's peaks restored from the state
	// directory (nil: none yet), and SaveEquityPeaks keeps them there when
	// they change (nil: in memory only). A failed save is tried again on
	// the next tick; engine run logs it.
	EquityPeaks     EquityPeaks
	SaveEquityPeaks func(EquityPeaks) error
	// OnTrip is told of every halt a protection trips, after it is kept
	// (engine run logs it at error level and notifies); nil: nothing.
	OnTrip func(Halt)
}

// Halt is a stop of new entries that a rule's halt action or a protection
// of the safety file asked for: until Until (zero: until lifted by hand,
// engine resume, SIGUSR2), for Reason.
type Halt struct {
	Rule string `json:"rule,omitempty"`
	// Protection is the safety file's protection that tripped the halt,
	// instead of a rule (max_daily_loss, stop_after_losses).
	Protection string    `json:"protection,omitempty"`
	Reason     string    `json:"reason"`
	At         time.Time `json:"at"`
	Until      time.Time `json:"until,omitzero"`
	// Lifted, in a halt that no longer holds, is when the last one was
	// lifted by hand: the protections count losses after it.
	Lifted time.Time `json:"lifted,omitzero"`
}

// ErrHaltHoldsLonger is Guard.Halt's answer when the halt in force ends no
// sooner than the new one: it stays, so that a rule's short halt never
// shortens a longer one (one until lifted by hand, or a later end).
var ErrHaltHoldsLonger = errors.New("an earlier halt holds as long or longer")

// endsAfter reports whether h ends later than other: h is until lifted by
// hand and other is not, or both end and h later.
func (h Halt) endsAfter(other Halt) bool {
	if other.Until.IsZero() {
		return false
	}
	return h.Until.IsZero() || h.Until.After(other.Until)
}

// Active reports whether h stops new entries at now.
func (h Halt) Active(now time.Time) bool {
	return !h.At.IsZero() && (h.Until.IsZero() || now.Before(h.Until))
}

// String says what h is as the status page shows it.
func (h Halt) String() string {
	end := "until lifted by hand: engine resume or SIGUSR2"
	if !h.Until.IsZero() {
		end = "until " + h.Until.UTC().Format(time.RFC3339)
	}
	if h.Protection != "" {
		return fmt.Sprintf("halted by the safety file's %s: %s (%s)", h.Protection, h.Reason, end)
	}
	return fmt.Sprintf("halted by rule %s: %s (%s)", h.Rule, h.Reason, end)
}

// Guard applies the safety file to every new order. It is safe for
// concurrent use.
type Guard struct {
	opts   GuardOptions
	mu     sync.Mutex
	killed string      // reason of a kill by signal or API; empty when not killed
	halt   Halt        // the last halt of a rule or protection (Halt.Active says whether it holds)
	recent []time.Time // times of the orders of the last minute, oldest first
	// cooling are the symbols in their cooldown_after_loss, until when
	// (Observe sets them from the closed trades of each tick).
	cooling map[string]time.Time
	// peaks are max_drawdown's highest equity by coin and hour; unsaved
	// says the last save failed.
	peaks   EquityPeaks
	unsaved bool
}

// NewGuard returns a guard for opts.
func NewGuard(opts GuardOptions) *Guard {
	if opts.Safety == nil {
		opts.Safety = &Safety{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FileExists == nil {
		opts.FileExists = func(p string) bool { _, err := os.Stat(p); return err == nil }
	}
	peaks := opts.EquityPeaks.clone()
	return &Guard{opts: opts, halt: opts.Halt, peaks: peaks}
}

// Halt stops new entries as h says, and keeps it in the state directory
// (GuardOptions.SaveHalt). It replaces an earlier halt only when it ends
// later: a halt in force that ends no sooner stays, and the error is
// ErrHaltHoldsLonger (naming it). Otherwise the error is the save's: the
// halt holds in memory all the same.
func (g *Guard) Halt(h Halt) error {
	g.mu.Lock()
	if cur := g.halt; cur.Active(g.opts.Now()) && !h.endsAfter(cur) {
		g.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrHaltHoldsLonger, cur)
	}
	g.halt = h
	g.mu.Unlock()
	if g.opts.SaveHalt == nil {
		return nil
	}
	if err := g.opts.SaveHalt(h); err != nil {
		return fmt.Errorf("keep the halt in the state directory: %w", err)
	}
	return nil
}

// Kill turns the kill switch on (for example on SIGUSR1) until Resume.
func (g *Guard) Kill(reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if reason == "" {
		reason = "killed"
	}
	g.killed = reason
}

// Resume turns a Kill and a halt off (SIGUSR2, engine resume, the status
// page). The kill-switch file, if present, still applies. Lifting a halt
// also forgets max_drawdown's peaks, so that the fall that tripped it
// does not trip it again: the peak counts from the resume. The error is
// the save's of the lifted halt.
func (g *Guard) Resume() error {
	g.mu.Lock()
	g.killed = ""
	had := !g.halt.At.IsZero()
	if had {
		g.halt = Halt{Lifted: g.opts.Now()}
	}
	var peaks EquityPeaks
	if had && len(g.peaks) > 0 {
		g.peaks = EquityPeaks{}
		peaks = EquityPeaks{}
	}
	lifted := g.halt
	g.mu.Unlock()
	g.savePeaks(peaks)
	if !had || g.opts.SaveHalt == nil {
		return nil
	}
	if err := g.opts.SaveHalt(lifted); err != nil {
		return fmt.Errorf("keep the lifted halt in the state directory: %w", err)
	}
	return nil
}

// Killed reports whether new orders are stopped, and why.
func (g *Guard) Killed() (bool, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.killedLocked()
}

func (g *Guard) killedLocked() (bool, string) {
	if g.killed != "" {
		return true, g.killed
	}
	if g.halt.Active(g.opts.Now()) {
		return true, g.halt.String()
	}
	if f := g.opts.Safety.KillSwitchFile; f != "" && g.opts.FileExists(f) {
		return true, "kill switch file " + f + " exists"
	}
	return false, ""
}

// Allow checks one order against the safety file and, when it passes,
// counts it against max_orders_per_minute. The error names the limit.
func (g *Guard) Allow(o OrderCheck) error {
	if o.Reducing {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if k, why := g.killedLocked(); k {
		return fmt.Errorf("%s: %w (%s)", o.Symbol, ErrKillSwitch, why)
	}
	if until, ok := g.cooling[o.Symbol]; ok && g.opts.Now().Before(until) {
		return fmt.Errorf("%s: %w (until %s)", o.Symbol, ErrCooldownLoss, until.UTC().Format(time.RFC3339))
	}
	s := g.opts.Safety
	if len(s.AllowedSymbols) > 0 && !slices.Contains(s.AllowedSymbols, o.Symbol) {
		return fmt.Errorf("%s: %w", o.Symbol, ErrSymbolNotAllow)
	}
	lim, ok := s.Symbols[o.Symbol]
	if !ok {
		lim = s.Default
	}
	if o.SizeUnknown && (lim.MaxOrderSize.IsPositive() || lim.MaxNotional.IsPositive() || lim.MaxPosition.IsPositive()) ||
		o.PositionUnknown && lim.MaxPosition.IsPositive() {
		return fmt.Errorf("%s: %w", o.Symbol, ErrSizeUnknown)
	}
	if lim.MaxOrderSize.IsPositive() && o.Size.GreaterThan(lim.MaxOrderSize) {
		return fmt.Errorf("%s: size %s: %w %s", o.Symbol, o.Size, ErrOrderTooLarge, lim.MaxOrderSize)
	}
	if lim.MaxNotional.IsPositive() && !o.Price.IsPositive() {
		return fmt.Errorf("%s: %w", o.Symbol, ErrNoPrice)
	}
	if n := o.Size.Mul(o.Price); lim.MaxNotional.IsPositive() && n.GreaterThan(lim.MaxNotional) {
		return fmt.Errorf("%s: notional %s: %w %s", o.Symbol, n, ErrNotionalTooHigh, lim.MaxNotional)
	}
	if lim.MaxPosition.IsPositive() && o.PositionAfter.GreaterThan(lim.MaxPosition) {
		return fmt.Errorf("%s: position %s: %w %s", o.Symbol, o.PositionAfter, ErrPositionTooBig, lim.MaxPosition)
	}
	now := g.opts.Now()
	cut := 0
	for cut < len(g.recent) && now.Sub(g.recent[cut]) >= time.Minute {
		cut++
	}
	g.recent = g.recent[cut:]
	if s.MaxOrdersPerMinute > 0 && len(g.recent) >= s.MaxOrdersPerMinute {
		return fmt.Errorf("%s: %w (%d)", o.Symbol, ErrTooManyOrders, s.MaxOrdersPerMinute)
	}
	g.recent = append(g.recent, now)
	return nil
}
