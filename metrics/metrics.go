package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// namespace prefixes every metric name.
const namespace = "tickrules"

// EngineStats is what the metrics read of the engine at scrape time.
type EngineStats interface {
	Stats() (rules map[string]engine.RuleStats, ticks, skipped int64)
}

// LimiterStats is what the metrics read of the client's rate limiter.
type LimiterStats interface {
	Stats() exchange.LimiterStats
}

// PartsSource says which parts are polled and which of them are stale now
// (the poller).
type PartsSource interface {
	Parts() marketdata.PartSet
	State(now time.Time) (*marketdata.State, error)
	Stale(st *marketdata.State, parts marketdata.PartSet) (marketdata.Part, bool)
}

// Clock is the time at which staleness is judged.
type Clock interface {
	Now() time.Time
}

// HeartbeatSource is the tick loop's pulse (the engine), read without
// waiting for a tick in progress.
type HeartbeatSource interface {
	Heartbeat() engine.Heartbeat
}

// KillSwitch reports the kill switch (the actions guard).
type KillSwitch interface {
	Killed() (bool, string)
}

// ClockOffset is the venue's clock against the local one (clock.Venue):
// requests signed more than 30s off are refused by the venue.
type ClockOffset interface {
	Offset() time.Duration
}

// Sources are read at scrape time; a nil source leaves its metrics out (an
// in-process venue has no client-side limiter, nor a venue clock). Parts
// needs Clock.
type Sources struct {
	Engine    EngineStats
	Limiter   LimiterStats
	Parts     PartsSource
	Clock     Clock
	Heartbeat HeartbeatSource
	Kill      KillSwitch
	Offset    ClockOffset
}

// RegisterSources registers the scrape-time collector of src with reg.
func RegisterSources(reg prometheus.Registerer, src Sources) error {
	if reg == nil {
		return errNoRegisterer
	}
	return reg.Register(newCollector(src))
}

// Metrics holds the metrics observed through hooks; the rest is collected
// at scrape time from the sources in Options.
type Metrics struct {
	actions         *prometheus.CounterVec
	reconciliations *prometheus.CounterVec
	pollLatency     *prometheus.HistogramVec
	pollErrors      *prometheus.CounterVec
}

// New creates the metrics observed through hooks and registers them with reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "actions_total",
			Help: "Requests sent by actions (one per leg: an order, a batch chunk, a cancel), by action kind and outcome (ok, error, blocked)."},
			[]string{"kind", "outcome"}),
		reconciliations: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "reconciliations_total",
			Help: "Ambiguous outcomes (timeout, 5xx, no order id) settled by looking the order up by clientOid, by action kind and final outcome."},
			[]string{"kind", "outcome"}),
		pollLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "poll_duration_seconds",
			Help:    "Wall-clock time of one poll of one State part (all its requests), by part.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}},
			[]string{"part"}),
		pollErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "poll_errors_total",
			Help: "Polls that failed, by part; the previous answer is kept and ages towards staleness."},
			[]string{"part"}),
	}
	if reg == nil {
		return nil, errNoRegisterer
	}
	for _, c := range []prometheus.Collector{m.actions, m.reconciliations, m.pollLatency, m.pollErrors} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// ObserveLegs counts the requests of one firing's actions.
func (m *Metrics) ObserveLegs(legs []actions.Leg) {
	for i := range legs {
		l := &legs[i]
		m.actions.WithLabelValues(l.Kind, string(l.Outcome)).Inc()
		if l.Reconciled {
			m.reconciliations.WithLabelValues(l.Kind, string(l.Outcome)).Inc()
		}
	}
}

// ObservePoll records one poll; its signature fits
// poll.Options.OnFetch.
func (m *Metrics) ObservePoll(part marketdata.Part, _ string, took time.Duration, err error) {
	m.pollLatency.WithLabelValues(part.String()).Observe(took.Seconds())
	if err != nil {
		m.pollErrors.WithLabelValues(part.String()).Inc()
	}
}
