// Package actions turns the actions of a firing rule into exchange requests:
// it maps friendly intents (open long, close short) to side, tradeSide and
// reduceOnly by the account's position mode, rounds sizes and prices to the
// contract, derives a deterministic client order id per firing and leg,
// applies the risk guards, dispatches to a Venue and reconciles ambiguous
// outcomes by client order id before anything is re-sent.
//
// Each action kind is declared once, in its own file (place_order.go,
// halt.go...), as a Kind: its parameters and load-time checks for the rule
// loader (Kind.Def), its planning, whether it can open exposure, and how its
// requests are read back and shown. Kinds lists them; Defs is what the rule
// loader, the JSON Schema and the reference are given.
package actions
