package rules

import (
	"time"

	"github.com/tickrules/tickrules/marketdata"
)

// Env is what a program reads while it runs: one State and, for a rule
// instance of for_each, its symbol. The engine keeps one Env per goroutine
// and points it at each tick's State with SetState; nothing is allocated per
// rule. An Env must not be shared between goroutines, because Eval writes the
// program's bound symbol into it.
type Env struct {
	v vars
	c ClosureEnv // the same, for programs compiled by CompilerOptions.Closures
}

// vars is the expression environment proper. It is unexported, and has no
// exported methods, because expr turns every exported field into a variable
// and every exported method into a function a rule could call.
type vars struct {
	Now     time.Time `expr:"now"`
	NowMs   float64   `expr:"now_ms"`
	Weekday string    `expr:"weekday"`
	Symbol  string    `expr:"symbol"`

	state   *marketdata.State
	firings Firings
}

// Firings is what firings_today and minutes_since_fired read: the rules'
// firings as the engine recorded them (engine.RuleState). The engine sets
// one per tick (Env.SetFirings); without one the two functions fail, so a
// rule reading them does not fire.
type Firings interface {
	// Fired returns how often the rule named name (a for_each rule's name
	// counts every instance) fired since 00:00 New York time on the day of
	// the tick, and when it last fired (zero: never). ok is false when no
	// rule has that name.
	Fired(name string) (today int, last time.Time, ok bool)
}

// NewEnv returns an Env reading s.
func NewEnv(s *marketdata.State) *Env {
	e := &Env{}
	e.SetState(s)
	return e
}

// SetState points the Env at the State of a new tick.
func (e *Env) SetState(s *marketdata.State) {
	e.v = vars{state: s, firings: e.v.firings}
	e.c = ClosureEnv{State: s}
	if s == nil {
		return
	}
	e.v.Now = s.EasternNow()
	e.v.NowMs = float64(s.Now.UnixMilli())
	e.v.Weekday = s.Weekday()
	e.c.Now, e.c.NowMs, e.c.Weekday = e.v.Now, e.v.NowMs, e.v.Weekday
}

// SetFirings sets what firings_today and minutes_since_fired read, until
// the next call; nil makes them fail.
func (e *Env) SetFirings(f Firings) { e.v.firings = f }

// Value is what to pass as the environment to (*vm.VM).Run when running a
// Program's VMProgram directly, as the engine's benchmarks do. Eval is the
// way to run a program that reads symbol.
func (e *Env) Value() any { return &e.v }

// State returns the State the Env reads.
func (e *Env) State() *marketdata.State { return e.v.state }

// VarDoc documents one variable a condition can read.
type VarDoc struct {
	Name    string
	Type    string // number, text, true/false, time, an object name, list of <object>
	Unit    string
	Doc     string
	Example string
	// ForEachOnly marks variables that exist only in for_each rules.
	ForEachOnly bool
}

// Variables returns the documentation of every variable, in reference
// order: the time of the tick, then the variables backed by a State lookup
// (documented in their rows of the function table), then symbol. A test
// checks it against the expression environment.
func Variables() []VarDoc {
	out := []VarDoc{
		{"now", "time", "", "the time of the tick, in US Eastern time (never the wall clock)", "now.Hour() >= 15", false},
		{"now_ms", "number", "milliseconds since 1970-01-01 UTC", "the time of the tick as a Unix timestamp", "now_ms > 0", false},
		{"weekday", "text", "", "the Eastern weekday: Monday ... Sunday", `weekday == "Friday"`, false},
	}
	for _, f := range functions() {
		if f.variable != "" {
			out = append(out, VarDoc{f.variable, f.doc.Returns, f.doc.Unit, f.doc.Doc, f.doc.Example, false})
		}
	}
	return append(out, VarDoc{"symbol", "text", "", "the symbol of this instance of a for_each rule", `position(symbol, "long").size == 0`, true})
}
