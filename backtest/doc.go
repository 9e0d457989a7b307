// Package backtest replays a scenario, or a recording of a live venue,
// through the same engine, pollers and actions code that engine run uses,
// against the simulator on a virtual clock, and writes what happened as a
// report: report.json for machines (byte-identical for the same inputs) and
// report.html for people (a self-contained page: tables written here, charts
// drawn in the browser by the vendored TradingView Lightweight Charts
// inlined into the page, see assets/README.md). Trades, summary figures and
// chart data are computed here; the page only draws.
//
// A tick is one evaluation of the rules at the engine's step (1s by
// default). Every tick the virtual clock is set, the pollers fetch what is
// due from the simulated account, and the engine steps; the simulator
// matches resting orders against its price paths as its clock advances.
//
// The backtest alone turns on the speed-ups that engine run leaves off, and
// keeps their code: conditions compiled to Go closures
// (internal/native, through rules.LoadOptions.Closures), results reused
// while what a condition reads is the same and leaps over quiet seconds
// (engine.Options.Reuse with package backtest/reuse, Engine.SkipQuiet), and a source of States
// made for the simulator that shares data between ticks (source.go).
// Options.EvaluateEveryTick runs without any of them, as engine run
// evaluates; the equivalence tests compare the two ways report for report.
//
// Recordings (recording.go) hold the raw market-data answers a venue gave
// the pollers, plus futures tickers; replaying one runs the simulator over a
// Market built from those answers, so the account side (orders, fills,
// positions, balances) is simulated and the market side is recorded.
package backtest
