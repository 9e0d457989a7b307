// Package engine runs the tick loop: on every tick it evaluates every
// rule's condition, on expr's VM, over one immutable State, advances each
// rule's state machine (inactive -> pending -> firing -> cooldown, once per
// session or day), records a trace of why each rule did or did not fire,
// journals each firing's intent before its orders go out, and hands the
// firings to the actions package. The wiring of a run (venue, pollers,
// guard, executor) is package assemble's.
//
// The backtest's speed-ups are off unless the backtest turns them on
// (Options.Reuse: results reused while the data a condition reads is the
// same, judged by package backtest/reuse, which the engine does not
// import; quiet seconds recorded without stepping them, skip.go); engine
// run never does.
package engine
