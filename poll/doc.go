// Package poll is the live poller: it fetches the parts of the State the
// loaded rules read, each at an interval that keeps the polls inside half of
// the venue's rate limits (the other half stays free for orders), and keeps
// the latest answer of each in a marketdata.Answers, from which the engine
// takes one State per tick.
//
// What each part fetches, how often it is worth fetching, and where its
// answer is stored is one row of one table (parts.go). The poller knows
// nothing of simulators: a backtest's speed-ups live in package backtest,
// which plans its fetches with the same Plan and fetches with the same
// table (Fetch).
//
// The live poller spreads the fetches of each interval over it (each
// task at its phase) and says when a fetch brought new data (Arrived), so
// that the engine evaluates the rules as soon as it has: a rule sees
// fresh data, on average, half an interval after it changed at the venue
// (schedule.go). It gives the spare rate budget to the parts that move
// with trading (spare.go).
package poll
