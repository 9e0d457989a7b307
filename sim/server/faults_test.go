package server

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// sendRaw sends c and returns the transport error (nil when a response came).
func (h *harness) sendRaw(c call) error {
	h.t.Helper()
	resp, err := h.client.Do(h.request(c))
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func TestFaultDropBeforeProcessing(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Seed: 1, DropRate: 1} })
	err := h.sendRaw(placeCall())
	if !errors.Is(err, io.EOF) {
		t.Fatalf("error = %v, want EOF", err)
	}
	if n := h.backend.accounts[testKey].venue.callCount(); n != 0 {
		t.Errorf("venue called %d times, want 0", n)
	}
	if e := h.logs.FilterField(logDropped()).All(); len(e) != 1 {
		t.Errorf("%d dropped requests logged, want 1", len(e))
	}
}

func TestFaultDropAfterProcessing(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Seed: 1, DropRate: 1, DropAfterProcessing: true} })
	err := h.sendRaw(placeCall())
	if !errors.Is(err, io.EOF) {
		t.Fatalf("error = %v, want EOF", err)
	}
	// The client never heard back, but the order exists: the ambiguous
	// outcome a caller must reconcile by clientOid.
	v := h.backend.accounts[testKey].venue
	if v.orderCount() != 1 {
		t.Fatalf("%d orders after a dropped place, want 1", v.orderCount())
	}
	if _, ok := v.byOID["c-1"]; !ok {
		t.Error("order c-1 not found")
	}
}

func TestFaultErrorRate(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Seed: 1, ErrorRate: 1}; o.DisableRateLimits = true })
	h.do(placeCall()).expect(t, http.StatusInternalServerError, exchange.CodeTransient45001)
	if n := h.backend.accounts[testKey].venue.callCount(); n != 0 {
		t.Errorf("venue called %d times, want 0", n)
	}
}

func TestFaultRatesAreSeeded(t *testing.T) {
	outcomes := func(seed int64) []string {
		h := newHarness(t, func(o *Options) { o.Faults = Faults{Seed: seed, ErrorRate: 0.3}; o.DisableRateLimits = true })
		var got []string
		for range 40 {
			got = append(got, h.do(call{method: "GET", target: pathInfo, unsigned: true}).env.Code)
		}
		return got
	}
	a, b, c := outcomes(7), outcomes(7), outcomes(8)
	failures := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, request %d: %s vs %s", i, a[i], b[i])
		}
		if a[i] == exchange.CodeTransient45001 {
			failures++
		}
	}
	if failures == 0 || failures == len(a) {
		t.Errorf("%d of %d failed at rate 0.3", failures, len(a))
	}
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Error("seeds 7 and 8 gave the same faults")
	}
}

func TestFaultRateLimitBurst(t *testing.T) {
	burst := Window{Start: testStart.Add(time.Second), End: testStart.Add(2 * time.Second)}
	h := newHarness(t, func(o *Options) { o.Faults = Faults{RateLimitBursts: []Window{burst}}; o.DisableRateLimits = true })
	get := call{method: "GET", target: pathInfo, unsigned: true}
	h.do(get).expect(t, http.StatusOK, exchange.CodeSuccess)
	h.clk.Advance(time.Second)
	h.do(get).expect(t, http.StatusTooManyRequests, exchange.CodeTooManyRequests)
	h.do(placeCall()).expect(t, http.StatusTooManyRequests, exchange.CodeTooManyRequests)
	h.clk.Advance(time.Second) // End is exclusive
	h.do(get).expect(t, http.StatusOK, exchange.CodeSuccess)
}

func TestFaultLatencyWaitsOnTheServerClock(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Latency: 250 * time.Millisecond} })
	req := h.request(call{method: "GET", target: pathInfo, unsigned: true})
	done := make(chan int, 1)
	go func() {
		resp, err := h.client.Do(req)
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	if !h.clk.WaitForWaiters(1, nil) {
		t.Fatal("the server never waited on the clock")
	}
	select {
	case status := <-done:
		t.Fatalf("answered (status %d) before the latency passed", status)
	default:
	}
	h.clk.Advance(250 * time.Millisecond)
	select {
	case status := <-done:
		if status != http.StatusOK {
			t.Fatalf("status %d after the latency, want 200", status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer after the latency passed")
	}
}
