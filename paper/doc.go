// Package paper is the paper account of dry runs: a simulated exchange
// seeded from the live account (balances, position modes, positions, open
// orders) and priced from the live tickers. Orders go to it and never to the
// venue; market data still comes from the venue.
package paper
