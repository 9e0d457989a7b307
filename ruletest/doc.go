// Package ruletest runs rule tests: *_test.yaml files beside rule files that
// give a starting state, changes at given times (sample and hold: a value
// stays until a later change replaces it) and what the rules are expected to
// do. `engine test DIR` is its command line; docs/rule-tests.md is the
// format for traders.
//
// A test runs the real engine (engine.Engine) tick by tick on a virtual
// clock, so for, cooldown and once behave as in production. The State of
// each tick is built with marketdata.NewState from the test's held values,
// and the market session is computed from the scenario's market states and
// calendar at the tick's time. Actions go through the real actions.Executor
// and Dispatcher, so the request compared with the expectation is the exact
// request the engine would send; the venue behind them only records and
// checks each request against the spec's client-side validation and answers
// with a made-up order id. Orders are therefore never filled: the State
// changes only as the test says, which keeps every test's outcome a function
// of its file alone (and of its scenario file, when a test starts from a
// scenario account: that account's records as the simulator serves them at
// the scenario's start).
package ruletest
