package backtest

import (
	"fmt"
	"io"
	"time"
)

// Progress lines start after this much wall time and repeat at most this
// often: a short backtest prints nothing.
const (
	progressAfter = time.Second
	progressEvery = 500 * time.Millisecond
)

// progress writes "backtest: 42.0% at 2026-03-09T14:00:00Z, about 3s left"
// lines to w, measured on the wall clock wall.
type progress struct {
	w        io.Writer
	wall     func() time.Time
	from, to time.Time
	began    time.Time
	next     time.Time
	printed  bool
	calls    int
}

func (p *progress) start() {
	if p.w == nil {
		return
	}
	p.began = p.wall()
	p.next = p.began.Add(progressAfter)
}

// report is called every tick; it reads the wall clock only every 1024
// ticks, since reading it costs more than a quiet tick.
func (p *progress) report(sim time.Time) {
	if p.w == nil {
		return
	}
	p.calls++
	if p.calls&1023 != 0 {
		return
	}
	now := p.wall()
	if now.Before(p.next) {
		return
	}
	p.next = now.Add(progressEvery)
	done := sim.Sub(p.from)
	total := p.to.Sub(p.from)
	frac := float64(done) / float64(total)
	left := "unknown"
	if frac > 0 {
		elapsed := now.Sub(p.began)
		left = (time.Duration(float64(elapsed)/frac) - elapsed).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "backtest: %5.1f%% at %s, about %s left\n", 100*frac, stamp(sim), left)
	p.printed = true
}

// done ends the progress with a last line when any was printed.
func (p *progress) done() {
	if p.w == nil || !p.printed {
		return
	}
	fmt.Fprintf(p.w, "backtest: 100.0%% at %s, done in %s\n", stamp(p.to), p.wall().Sub(p.began).Round(time.Millisecond))
}
