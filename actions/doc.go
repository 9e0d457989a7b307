// Package actions turns the actions of a firing rule into exchange requests:
// it maps friendly intents (open long, close short) to side, tradeSide and
// reduceOnly by the account's position mode, rounds sizes and prices to the
// contract, derives a deterministic client order id per firing and leg,
// applies the risk guards, dispatches to a Venue and reconciles ambiguous
// outcomes by client order id before anything is re-sent.
package actions
