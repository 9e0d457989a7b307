package market_test

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/sim/market"
)

// The overnight session from Sunday 20:00 opens the week; there is none from
// Friday 20:00. Stock futures keep the venue's week in UTC-4.
func ExampleMarket_Session() {
	m, err := market.New(market.Options{})
	if err != nil {
		panic(err)
	}
	for _, wall := range []string{"2026-03-13 19:59", "2026-03-13 20:00", "2026-03-15 20:00", "2026-03-16 00:00", "2026-03-16 09:30"} {
		p, _ := time.Parse("2006-01-02 15:04", wall)
		at := market.EasternDate(p.Year(), p.Month(), p.Day(), p.Hour(), p.Minute())
		session := m.Session(at)
		if session == "" {
			session = "closed"
		}
		fmt.Printf("%s %s ET: %s, stock futures open: %v\n", market.Eastern(at).Format("Mon"), wall, session, m.FuturesOpen(at, true))
	}
	// Output:
	// Fri 2026-03-13 19:59 ET: after_hours, stock futures open: true
	// Fri 2026-03-13 20:00 ET: closed, stock futures open: true
	// Sun 2026-03-15 20:00 ET: overnight, stock futures open: false
	// Mon 2026-03-16 00:00 ET: overnight, stock futures open: true
	// Mon 2026-03-16 09:30 ET: regular, stock futures open: true
}

// A caller that asks at increasing times keeps the epoch until the span
// ends: a 10 s walk's epoch holds for the rest of its step; after the
// scenario's end the walk holds its price, and the span never ends.
func ExampleMarket_EpochSpan() {
	start := time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)
	m, err := market.New(market.Options{
		Start: start, End: start.Add(time.Minute),
		Paths: map[string]market.PathSpec{"BTCUSDT": {RandomWalk: &market.WalkSpec{
			Start: decimal.RequireFromString("91250.5"), Seed: 1, VolatilityBps: 3, Step: 10 * time.Second,
		}}},
	})
	if err != nil {
		panic(err)
	}
	for _, at := range []time.Time{start.Add(23 * time.Second), start.Add(2 * time.Minute)} {
		epoch, until := m.EpochSpan(at)
		if until.IsZero() {
			fmt.Printf("at %s: epoch %s, forever\n", at.Format("15:04:05"), time.Unix(0, epoch).UTC().Format("15:04:05"))
			continue
		}
		fmt.Printf("at %s: epoch %s until %s\n", at.Format("15:04:05"), time.Unix(0, epoch).UTC().Format("15:04:05"), until.Format("15:04:05"))
	}
	// Output:
	// at 13:00:23: epoch 13:00:20 until 13:00:30
	// at 13:02:00: epoch 13:01:00, forever
}
