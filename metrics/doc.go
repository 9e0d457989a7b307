// Package metrics exposes the running engine to Prometheus: evaluations,
// firings, rule errors and stale evaluations per rule, actions by kind and
// outcome, reconciliations, poll latency by part, stale parts, and the
// client's rate-limit waits.
//
// Counters the engine and the limiter already keep are read when Prometheus
// scrapes (a custom collector), so the tick pays nothing for them; what has
// no counter elsewhere (action legs, poll latency) is observed through hooks.
// Every metric lives in the registry passed in, never in the global one.
package metrics
