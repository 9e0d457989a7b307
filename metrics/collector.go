package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tickrules/tickrules/marketdata"
)

var errNoRegisterer = errors.New("metrics: Options.Registerer is required")

// collector reads the counters the engine and the limiter keep, and the
// staleness of every polled part, when Prometheus scrapes.
type collector struct {
	opts Sources

	evaluations, firings, ruleErrors, staleEvals *prometheus.Desc
	ticks, skipped                               *prometheus.Desc
	limitWaits, limitWaitSeconds, throttled      *prometheus.Desc
	staleParts                                   *prometheus.Desc
	lastTick, ready, killSwitch, clockOffset     *prometheus.Desc
}

func newCollector(opts Sources) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, labels, nil)
	}
	return &collector{
		opts:             opts,
		evaluations:      d("rule_evaluations_total", "Ticks on which a rule was evaluated (or skipped for stale data), by rule.", "rule"),
		firings:          d("rule_firings_total", "Firings of a rule (transitions into firing; its actions ran), by rule.", "rule"),
		ruleErrors:       d("rule_errors_total", "Evaluations of a rule whose condition could not be evaluated (not counting stale data), by rule.", "rule"),
		staleEvals:       d("rule_stale_total", "Evaluations of a rule skipped because a part it reads was stale or missing, by rule.", "rule"),
		ticks:            d("engine_ticks_total", "Ticks the engine ran."),
		skipped:          d("engine_ticks_skipped_total", "Ticks skipped because an earlier tick overran."),
		limitWaits:       d("rate_limit_waits_total", "Requests that waited for the client-side rate limiter, by operation.", "op"),
		limitWaitSeconds: d("rate_limit_wait_seconds_total", "Time requests spent waiting for the client-side rate limiter, by operation.", "op"),
		throttled:        d("rate_limited_responses_total", "HTTP 429 answers received, by operation (each is a bug: the limiter should prevent it).", "op"),
		staleParts:       d("stale_part", "1 when a polled State part is stale or missing now, else 0, by part.", "part"),
		lastTick:         d("engine_last_tick_timestamp_seconds", "When the tick loop last finished a tick, in Unix seconds of the engine's clock (0 before the first): a stuck loop stops moving it."),
		ready:            d("engine_ready", "1 once every polled part was fetched once (rules may fire), else 0."),
		killSwitch:       d("kill_switch", "1 while the kill switch is on (no new orders; cancels and closes still run), else 0."),
		clockOffset:      d("venue_clock_offset_seconds", "The venue's clock minus the local clock; the venue refuses requests signed more than 30s off."),
	}
}

// Describe sends every descriptor.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.evaluations, c.firings, c.ruleErrors, c.staleEvals, c.ticks, c.skipped,
		c.limitWaits, c.limitWaitSeconds, c.throttled, c.staleParts, c.lastTick, c.ready, c.killSwitch, c.clockOffset} {
		ch <- d
	}
}

// Collect reads the sources.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	if c.opts.Engine != nil {
		rules, ticks, skipped := c.opts.Engine.Stats()
		for name, s := range rules {
			counter(c.evaluations, float64(s.Evaluations), name)
			counter(c.firings, float64(s.Firings), name)
			counter(c.ruleErrors, float64(s.Errors), name)
			counter(c.staleEvals, float64(s.Stale), name)
		}
		counter(c.ticks, float64(ticks))
		counter(c.skipped, float64(skipped))
	}
	if c.opts.Limiter != nil {
		for op, s := range c.opts.Limiter.Stats().Ops {
			counter(c.limitWaits, float64(s.Waits), string(op))
			counter(c.limitWaitSeconds, s.WaitTime.Seconds(), string(op))
			counter(c.throttled, float64(s.Throttled), string(op))
		}
	}
	if c.opts.Parts != nil && c.opts.Clock != nil {
		c.collectStale(ch)
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	if c.opts.Heartbeat != nil {
		hb := c.opts.Heartbeat.Heartbeat()
		last := 0.0
		if !hb.Last.IsZero() {
			last = float64(hb.Last.UnixNano()) / 1e9
		}
		gauge(c.lastTick, last)
		gauge(c.ready, boolValue(hb.Ready))
	}
	if c.opts.Kill != nil {
		on, _ := c.opts.Kill.Killed()
		gauge(c.killSwitch, boolValue(on))
	}
	if c.opts.Offset != nil {
		gauge(c.clockOffset, c.opts.Offset.Offset().Seconds())
	}
}

// boolValue is 1 for true and 0 for false.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (c *collector) collectStale(ch chan<- prometheus.Metric) {
	src := c.opts.Parts
	st, _ := src.State(c.opts.Clock.Now())
	for _, part := range src.Parts().Parts() {
		v := 1.0
		if st != nil {
			if _, stale := src.Stale(st, marketdata.PartSet(0).Add(part)); !stale {
				v = 0
			}
		}
		ch <- prometheus.MustNewConstMetric(c.staleParts, prometheus.GaugeValue, v, part.String())
	}
}
