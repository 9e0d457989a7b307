package exchange

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// RetryPolicy is how a GET is retried after a network error, a 5xx, a 429 or
// a transient exchange code: capped exponential backoff with jitter. POSTs
// are never retried: whether a failed order went through is decided by
// looking it up by clientOid, not by sending it again.
type RetryPolicy struct {
	// MaxAttempts is the number of attempts including the first; 1 disables
	// retries. Zero means the default, 4.
	MaxAttempts int
	// Base is the backoff before the second attempt; it doubles per attempt.
	// Zero means 200ms.
	Base time.Duration
	// Max caps the backoff. Zero means 5s.
	Max time.Duration
}

// Defaults of RetryPolicy.
const (
	DefaultRetryAttempts = 4
	DefaultRetryBase     = 200 * time.Millisecond
	DefaultRetryMax      = 5 * time.Second
)

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetryAttempts
	}
	if p.Base <= 0 {
		p.Base = DefaultRetryBase
	}
	if p.Max <= 0 {
		p.Max = DefaultRetryMax
	}
	if p.Max < p.Base {
		p.Max = p.Base
	}
	return p
}

// backoff returns the wait after failed attempt n (1-based): the capped
// exponential step d = min(Max, Base*2^(n-1)), jittered uniformly into
// [d/2, d] so that callers failing together do not retry together, while
// never waiting less than half the step.
func (p RetryPolicy) backoff(n int, jitter func() float64) time.Duration {
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	return half + time.Duration(jitter()*float64(d-half))
}

// retryable reports whether a GET that failed with err may be sent again.
// Context cancellation and client-side problems (validation, encoding,
// missing credentials) are final; so is a malformed 2xx response, which
// another attempt would most likely repeat.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.IsRetryable()
	}
	var netErr *transportError
	return errors.As(err, &netErr)
}

// transportError marks a failure to get any HTTP response at all.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// lockedRand makes a seedable *rand.Rand safe for the client's concurrent
// callers.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}
