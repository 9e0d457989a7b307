package server

import (
	"sync"
	"time"
)

// maxBuckets bounds the limiter's memory: past it, buckets that have fully
// refilled (and so carry no information) are dropped.
const maxBuckets = 10_000

// limiter answers allow or deny for a key at a time, with one token bucket
// per key. It is the generic cell rate algorithm: a bucket is the time at
// which it will be full again, so the state is one time.Time and the
// arithmetic is exact on durations. Unlike the client's limiter it never
// waits: a server only decides.
type limiter struct {
	mu      sync.Mutex
	buckets map[bucketKey]time.Time // key -> theoretical arrival time
}

// bucketKey is one limit counted for one subject: an operation (empty for
// the overall IP limit) and a uid or remote IP.
type bucketKey struct {
	op      string
	subject string
}

func newLimiter() *limiter { return &limiter{buckets: make(map[bucketKey]time.Time)} }

// allow takes one token from the bucket of k, which holds rate tokens and
// refills them evenly over per, and reports whether one was there.
func (l *limiter) allow(k bucketKey, rate int, per time.Duration, now time.Time) bool {
	if rate <= 0 || per <= 0 {
		return true
	}
	interval := per / time.Duration(rate)
	l.mu.Lock()
	defer l.mu.Unlock()
	tat, ok := l.buckets[k]
	if !ok || tat.Before(now) {
		tat = now
	}
	// Deny when taking a token would push the bucket's full time more than
	// one period ahead of now, i.e. when all rate tokens are in use.
	if tat.Sub(now) > per-interval {
		return false
	}
	if !ok && len(l.buckets) >= maxBuckets {
		l.prune(now)
	}
	l.buckets[k] = tat.Add(interval)
	return true
}

// prune drops every bucket that is full again at now.
func (l *limiter) prune(now time.Time) {
	for k, tat := range l.buckets {
		if !tat.After(now) {
			delete(l.buckets, k)
		}
	}
}
