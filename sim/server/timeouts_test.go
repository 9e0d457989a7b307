package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestNewHTTPServerDefaults(t *testing.T) {
	srv := NewHTTPServer(http.NotFoundHandler(), HTTPOptions{})
	for name, got := range map[string][2]time.Duration{
		"ReadHeaderTimeout": {srv.ReadHeaderTimeout, DefaultReadHeaderTimeout},
		"ReadTimeout":       {srv.ReadTimeout, DefaultReadTimeout},
		"WriteTimeout":      {srv.WriteTimeout, DefaultWriteTimeout},
		"IdleTimeout":       {srv.IdleTimeout, DefaultIdleTimeout},
	} {
		if got[0] != got[1] || got[0] <= 0 {
			t.Errorf("%s = %s, want %s", name, got[0], got[1])
		}
	}
}

// TestStalledClientsAreCutOff talks raw TCP to the simulator's HTTP server
// on loopback: a client that stops half way through its headers or its
// body, or keeps an idle connection, has the connection closed by the
// server within its timeout (short ones here), instead of holding it open.
func TestStalledClientsAreCutOff(t *testing.T) {
	h := newSimHarness(t, nil)
	const timeout = 300 * time.Millisecond
	srv := NewHTTPServer(New(Options{Backend: h.served, Clock: h.clk, DisableRateLimits: true}),
		HTTPOptions{ReadHeaderTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, IdleTimeout: timeout})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	const body = `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"1","side":"buy","orderType":"market"}`
	tests := []struct {
		name string
		send string
	}{
		{"half the headers", "POST " + pathPlace + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl"},
		{"headers and half the body", "POST " + pathPlace + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body[:len(body)/2]},
		{"idle after a complete request", "GET " + pathInfo + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tt.send); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			// The client's own deadline only bounds the test: the server
			// must close well before it.
			if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(bufio.NewReader(c))
			took := time.Since(start)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("connection still open after %s (read %q)", took, got)
			}
			if took > 5*timeout {
				t.Errorf("closed after %s, want about %s", took, timeout)
			}
			if tt.name == "idle after a complete request" && !strings.HasPrefix(string(got), "HTTP/1.1 200") {
				t.Errorf("the complete request was not answered before the idle close: %q", got)
			}
		})
	}
}
