package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
)

// benchRoundTrip places and cancels one order per iteration over HTTP on
// loopback, signing both requests; backend supplies the venue.
func benchRoundTrip(b *testing.B, backend Backend, key, secret, pass, place string) {
	clk := clock.NewVirtual(testStart)
	srv := httptest.NewServer(New(Options{Backend: backend, Clock: clk, DisableRateLimits: true}))
	defer srv.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(path, body string) []byte {
		ts := strconv.FormatInt(clk.Now().UnixMilli(), 10)
		req, err := http.NewRequest("POST", srv.URL+path, bytes.NewBufferString(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(headerKey, key)
		req.Header.Set(headerPassphrase, pass)
		req.Header.Set(headerTimestamp, ts)
		req.Header.Set(headerSign, handSign(secret, ts, "POST", path, body))
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("%s: HTTP %d %s %v", path, resp.StatusCode, out, err)
		}
		return out
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		oid := fmt.Sprintf("bench-%d", i)
		var env struct {
			Data struct {
				OrderID string `json:"orderId"`
			} `json:"data"`
		}
		if err := json.Unmarshal(post(pathPlace, fmt.Sprintf(place, oid)), &env); err != nil || env.Data.OrderID == "" {
			b.Fatalf("place: no orderId (%v)", err)
		}
		post(pathCancel, fmt.Sprintf(`{"symbol":"BTCUSDT","productType":"USDT-FUTURES","orderId":%q}`, env.Data.OrderID))
	}
}

// BenchmarkPlaceCancelHTTPFake measures the server alone: the venue is the
// in-memory fake, so the figure is HTTP, signing and envelope overhead.
func BenchmarkPlaceCancelHTTPFake(b *testing.B) {
	place := `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"limit","price":"60000","clientOid":%q}`
	benchRoundTrip(b, newFakeBackend(), testKey, testSecret, testPassphrase, place)
}
