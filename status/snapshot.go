package status

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/marketdata"
)

// Snapshot is everything the status page, /api/status and engine status
// show, at one moment.
type Snapshot struct {
	Time    time.Time `json:"time"`
	Started time.Time `json:"started"`
	Venue   string    `json:"venue"`
	DryRun  bool      `json:"dry_run"`
	Engine  Engine    `json:"engine"`
	// KillSwitch is on when no new order may be sent.
	KillSwitch     KillSwitch      `json:"kill_switch"`
	Rules          []Rule          `json:"rules"`
	Positions      []Position      `json:"positions"`
	Orders         []Order         `json:"open_orders"`
	StrategyOrders []StrategyOrder `json:"strategy_orders"`
	Accounts       []Account       `json:"accounts"`
	Polls          []PartHealth    `json:"polls"`
	Firings        []FiringRecord  `json:"recent_firings"`
	Sent           []OrderRecord   `json:"recent_orders"`
	Fills          []FillRecord    `json:"recent_fills"`
	Totals         Totals          `json:"totals"`
	// Health is what /healthz and /readyz answer (nil without a Health).
	Health *HealthStatus `json:"health,omitempty"`
}

// Engine is the tick loop's progress.
type Engine struct {
	Ticks   int64 `json:"ticks"`
	Skipped int64 `json:"ticks_skipped"`
	// LastTick is the time of the last tick's State (zero before the first).
	LastTick time.Time `json:"last_tick,omitzero"`
	// Ready is false until every polled part was fetched once: no rule
	// fires before.
	Ready bool `json:"ready"`
	// Busy is set when the engine did not answer within BoardOptions.Wait
	// (a tick still sending orders): the rules are then those of the last
	// answer, and the account and fills are current.
	Busy bool `json:"busy,omitempty"`
}

// KillSwitch says whether new orders are stopped, and why.
type KillSwitch struct {
	On     bool   `json:"on"`
	Reason string `json:"reason,omitempty"`
	// Resumable says the page can lift it (a POST to /api/resume from the
	// engine's machine); a kill-switch file stays until it is removed.
	Resumable bool `json:"resumable,omitempty"`
}

// Rule is one rule's status and, in words, why it is not firing.
type Rule struct {
	engine.RuleStatus
	// Guard is the risk guard that refused the orders of the rule's last
	// firing, if one did.
	Guard string `json:"guard,omitempty"`
	// Why says in one line why the rule is not firing now (or that it
	// just fired).
	Why string `json:"why"`
}

// RuleDetail is one rule with its recent evaluations (engine why).
type RuleDetail struct {
	Rule
	Traces []engine.Trace `json:"traces"`
}

// Position is an open futures position.
type Position struct {
	Symbol        string  `json:"symbol"`
	Side          string  `json:"side"`
	Size          float64 `json:"size"`
	EntryPrice    float64 `json:"entry_price"`
	MarkPrice     float64 `json:"mark_price"`
	UnrealizedPnL float64 `json:"unrealized_pnl"`
	Leverage      float64 `json:"leverage"`
	MarginCoin    string  `json:"margin_coin"`
}

// Order is a pending futures order.
type Order struct {
	Symbol    string  `json:"symbol"`
	Side      string  `json:"side"`
	Intent    string  `json:"intent"`
	Type      string  `json:"type"`
	Price     float64 `json:"price"`
	Size      float64 `json:"size"`
	Filled    float64 `json:"filled"`
	Status    string  `json:"status"`
	OrderID   string  `json:"order_id"`
	ClientOID string  `json:"client_oid,omitempty"`
	Rule      string  `json:"rule,omitempty"`
	AgeSec    float64 `json:"age_seconds"`
}

// StrategyOrder is a pending strategy (plan) order.
type StrategyOrder struct {
	Symbol       string  `json:"symbol"`
	Type         string  `json:"type"`
	Side         string  `json:"side"`
	Size         float64 `json:"size"`
	TriggerPrice float64 `json:"trigger_price,omitempty"`
	TakeProfit   float64 `json:"take_profit,omitempty"`
	StopLoss     float64 `json:"stop_loss,omitempty"`
	Status       string  `json:"status"`
	OrderID      string  `json:"order_id"`
}

// PartHealth is how fresh one polled part of the State is.
type PartHealth struct {
	Part     string    `json:"part"`
	Fetched  bool      `json:"fetched"`
	LastPoll time.Time `json:"last_poll,omitzero"`
	// AgeSeconds is how old the part was at the last tick.
	AgeSeconds float64 `json:"age_seconds"`
	Interval   string  `json:"interval,omitempty"`
	Stale      bool    `json:"stale"`
}

// EngineSource is what the board reads of the engine.
type EngineSource interface {
	Status() engine.Status
	RuleStatus(name string) (engine.RuleStatus, []engine.Trace, bool)
}

// KillSwitchSource reports the kill switch (the actions guard).
type KillSwitchSource interface {
	Killed() (bool, string)
}

// PartsSource says which parts are polled and which are stale (the poller).
type PartsSource interface {
	Parts() marketdata.PartSet
	Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool)
}

// intervaler is a PartsSource that knows each part's poll interval.
type intervaler interface {
	Interval(p marketdata.Part) time.Duration
}

// BoardOptions configure a Board. Engine, Recorder and Clock are required.
type BoardOptions struct {
	Engine   EngineSource
	Guard    KillSwitchSource // nil: no kill switch to show
	Parts    PartsSource      // nil: no poll health
	Recorder *Recorder
	Clock    interface{ Now() time.Time }
	// Health answers /healthz and /readyz and fills Snapshot.Health (nil:
	// neither).
	Health  *Health
	Venue   string
	DryRun  bool
	Started time.Time
	// Resume lifts the halt and the SIGUSR1 kill switch, as SIGUSR2 does;
	// from is the caller's address, for the log (nil: the page and the API
	// cannot lift a halt).
	Resume func(from string) error
	// Wait is how long a request waits for the engine, which answers
	// between ticks (default 2s, in real time: a person is waiting). A
	// tick that sends orders can take longer; the page then shows the last
	// answer rather than hang.
	Wait time.Duration
}

// Board builds Snapshots from the running engine.
type Board struct {
	opts BoardOptions

	mu       sync.Mutex
	last     engine.Status
	inflight chan struct{} // closed when the running Engine.Status call returns
}

// NewBoard returns a Board over opts.
func NewBoard(opts BoardOptions) *Board {
	if opts.Wait <= 0 {
		opts.Wait = 2 * time.Second
	}
	return &Board{opts: opts}
}

// engineStatus asks the engine for its status, at most one call at a time,
// and waits up to Wait for it; busy is true when it had to give the last
// answer instead.
func (b *Board) engineStatus() (es engine.Status, busy bool) {
	b.mu.Lock()
	if b.inflight == nil {
		done := make(chan struct{})
		b.inflight = done
		go func() {
			s := b.opts.Engine.Status()
			b.mu.Lock()
			b.last, b.inflight = s, nil
			b.mu.Unlock()
			close(done)
		}()
	}
	done := b.inflight
	b.mu.Unlock()
	t := time.NewTimer(b.opts.Wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		busy = true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last, busy
}

// Snapshot reads everything now.
func (b *Board) Snapshot() Snapshot {
	o := b.opts
	es, busy := b.engineStatus()
	st := es.State
	s := Snapshot{Time: o.Clock.Now().UTC(), Started: o.Started.UTC(), Venue: o.Venue, DryRun: o.DryRun,
		Engine: Engine{Ticks: es.Ticks, Skipped: es.Skipped, Ready: es.Ready, Busy: busy}}
	if st != nil {
		s.Engine.LastTick = st.Now.UTC()
	}
	if o.Guard != nil {
		s.KillSwitch.On, s.KillSwitch.Reason = o.Guard.Killed()
		s.KillSwitch.Resumable = s.KillSwitch.On && o.Resume != nil
	}
	s.Rules = make([]Rule, 0, len(es.Rules))
	for _, r := range es.Rules {
		s.Rules = append(s.Rules, b.rule(r))
	}
	s.Firings, s.Sent, s.Fills, s.Totals = o.Recorder.Recent()
	s.Accounts = o.Recorder.Accounts()
	s.Positions, s.Orders, s.StrategyOrders = []Position{}, []Order{}, []StrategyOrder{}
	if st != nil {
		b.account(&s, st)
	}
	s.Polls = b.polls(st)
	if o.Health != nil {
		hs := o.Health.Status()
		s.Health = &hs
	}
	return s
}

// Rule returns the named rule with its recent traces.
func (b *Board) Rule(name string) (RuleDetail, bool) {
	rs, traces, ok := b.opts.Engine.RuleStatus(name)
	if !ok {
		return RuleDetail{}, false
	}
	for i := range traces {
		traces[i].Values = jsonSafe(traces[i].Values)
	}
	return RuleDetail{Rule: b.rule(rs), Traces: traces}, true
}

func (b *Board) rule(r engine.RuleStatus) Rule {
	r.Values = jsonSafe(r.Values)
	out := Rule{RuleStatus: r, Guard: b.opts.Recorder.Blocked(r.Name)}
	out.Why = Why(out)
	return out
}

// jsonSafe returns values with every value JSON cannot carry (a division
// by zero's +Inf, a NaN, inside a number or an object) replaced by its
// text, so one odd value never breaks the whole status answer.
func jsonSafe(values map[string]any) map[string]any {
	var out map[string]any
	for k, v := range values {
		if _, err := json.Marshal(v); err == nil {
			continue
		}
		if out == nil {
			out = maps.Clone(values)
		}
		out[k] = fmt.Sprint(v)
	}
	if out == nil {
		return values
	}
	return out
}

// Why says in one line why r is not firing, with times in New York time.
func Why(r Rule) string {
	at := func(t time.Time) string { return t.In(newYork).Format("15:04:05 MST") }
	switch {
	case r.Guard != "" && (r.Reason == engine.ReasonFired || r.Reason == engine.ReasonStillTrue || r.Reason == engine.ReasonCooldown):
		return "fired, but a risk guard blocked its order: " + r.Guard
	}
	switch r.Reason {
	case engine.ReasonFalse:
		return "condition false"
	case engine.ReasonHolding:
		return fmt.Sprintf("condition true, holding for %s until %s", r.For, at(r.Until))
	case engine.ReasonCooldown:
		return "cooldown until " + at(r.Until)
	case engine.ReasonOnce:
		if r.Once == engine.OncePerDay {
			return "already fired once today"
		}
		return "already fired once in this session"
	case engine.ReasonStale:
		if r.StalePart != "" {
			return "stale or missing data: " + r.StalePart
		}
		return "stale or missing data"
	case engine.ReasonFired:
		return "fired at " + at(r.LastFired)
	case engine.ReasonStillTrue:
		return "fired at " + at(r.LastFired) + "; waits for the condition to turn false"
	case engine.ReasonUnknown:
		if r.Detail != "" {
			return "condition could not be evaluated: " + r.Detail
		}
	case "":
		return "not evaluated yet"
	}
	return string(r.Reason)
}

func (b *Board) account(s *Snapshot, st *marketdata.State) {
	if ps, err := st.Positions(); err == nil {
		for _, p := range ps {
			s.Positions = append(s.Positions, Position{Symbol: p.Symbol, Side: p.Side, Size: p.Size, EntryPrice: p.EntryPrice,
				MarkPrice: p.MarkPrice, UnrealizedPnL: p.UnrealizedPnL, Leverage: p.Leverage, MarginCoin: p.MarginCoin})
		}
	}
	// What the engine sent names the rule, and the intent where the venue's
	// order does not tell it (one-way mode has no tradeSide).
	sent := map[string]OrderRecord{}
	for _, o := range s.Sent {
		sent[o.ClientOID] = o
	}
	for _, o := range st.AllOrders() {
		rec := sent[o.ClientOID]
		s.Orders = append(s.Orders, Order{Symbol: o.Symbol, Side: o.Side, Intent: cmp.Or(orderIntent(o), rec.Intent), Type: o.OrderType,
			Price: o.Price, Size: o.Size, Filled: o.Filled, Status: o.Status, OrderID: o.ID, ClientOID: o.ClientOID,
			Rule: rec.Rule, AgeSec: o.AgeSeconds})
	}
	for _, o := range st.AllStrategyOrders() {
		s.StrategyOrders = append(s.StrategyOrders, StrategyOrder{Symbol: o.Symbol, Type: o.Type, Side: o.Side, Size: o.Size,
			TriggerPrice: o.TriggerPrice, TakeProfit: o.TakeProfit, StopLoss: o.StopLoss, Status: o.Status, OrderID: o.ID})
	}
}

// orderIntent names a pending order's effect; a pending order carries the
// position side it acts on in hedge mode.
func orderIntent(o *marketdata.Order) string {
	switch o.TradeSide {
	case "open", "close":
		return o.TradeSide + " " + holdOfPos(o.PosSide, o.Side, o.TradeSide)
	}
	return ""
}

func holdOfPos(pos, side, ts string) string {
	if pos == "long" || pos == "short" {
		return pos
	}
	if (side == "sell") == (ts == "open") {
		return "short"
	}
	return "long"
}

func (b *Board) polls(st *marketdata.State) []PartHealth {
	out := []PartHealth{}
	src := b.opts.Parts
	if src == nil {
		return out
	}
	iv, _ := src.(intervaler)
	for _, p := range src.Parts().Parts() {
		h := PartHealth{Part: p.String(), Stale: true}
		if iv != nil {
			h.Interval = iv.Interval(p).String()
		}
		if st != nil {
			ps := st.Part(p)
			h.Fetched, h.LastPoll = ps.Fetched, ps.At.UTC()
			if ps.Fetched {
				h.AgeSeconds = st.Now.Sub(ps.At).Seconds()
			} else {
				h.LastPoll = time.Time{}
			}
			_, h.Stale = src.Stale(st, marketdata.PartSet(0).Add(p))
		}
		out = append(out, h)
	}
	return out
}
