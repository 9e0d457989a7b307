// Package engine runs the tick loop: on every tick it evaluates the compiled
// rules over one immutable State, advances each rule's state machine
// (inactive -> pending -> firing -> cooldown, once per session or day),
// records a trace of why each rule did or did not fire, and hands the
// firings to the actions package.
package engine
