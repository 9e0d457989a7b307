// Package marketdata turns what the exchange reports into one immutable State
// per engine tick: the US market session, stock pairs (info, order book,
// platform fills), futures positions, pending orders, strategy orders,
// discount tiers, spot records, balances and position modes.
//
// Rule conditions read a State through package rules. Three choices shape it:
//
//   - Conditions see float64. Every derived value (mid, spread_bps, imbalance,
//     vwap, P&L ratios, ages) is computed once, when the State is built, not
//     in every rule that reads it. Prices and sizes that are sent back to the
//     exchange never come from here; actions use decimals.
//   - Missing data never looks like zero. Each object records which of its
//     parts are known (see Need); a lookup that asks for a part that was not
//     fetched, or that has no value (an empty book side, a flat position's
//     entry price, minutes_to_close while the market is closed), fails with an
//     error that wraps ErrMissingData and says what is missing. A position
//     that is known to be flat is not missing: its size is 0 when the
//     positions of its product type were fetched.
//   - Each part records when it was fetched (State.Part and the per-object
//     times), so the engine can refuse to act on stale data.
//
// Each field a condition can read is one row of Objects (state_fields.go):
// its name, type, unit and words, what must be fetched for it to have a value
// (and so the parts the poller fetches for a rule that reads it), how it
// moves with time, the values it takes and its reader. The checker, the
// generated reference, the poller's demand, the time tables and the
// backtest's compiled conditions are derived from the rows, and tests check
// the rows against the struct tags expr's VM reads.
//
// Each field a condition can read has a json tag equal to its expr tag, and
// the other exported fields are json:"-": a trace (log line, status API,
// backtest report) shows an object a term gives whole in the names the
// trader writes in rules, and nothing a rule cannot name. A test keeps the
// two tags equal.
package marketdata
