package market_test

import (
	"fmt"
	"time"

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
