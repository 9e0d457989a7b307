package actions

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
)

// TestPlaceLookupMeets40109 drives the dispatcher through the real client
// against a server that answers as the live venue does: the first
// place-order is lost (the connection closes before any answer), and the
// lookup by clientOid gets the venue's 40109 "The data of the order cannot
// be found" (HTTP 400), which must read as absent and lead to exactly one
// re-send with the same clientOid.
func TestPlaceLookupMeets40109(t *testing.T) {
	v := clock.NewVirtual(time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	var places, lookups int
	var placedOIDs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v2/public/time":
			fmt.Fprintf(w, `{"code":"00000","msg":"success","requestTime":%d,"data":{"serverTime":"%d"}}`, v.Now().UnixMilli(), v.Now().UnixMilli())
		case "/api/v2/mix/order/place-order":
			places++
			body, _ := io.ReadAll(r.Body)
			placedOIDs = append(placedOIDs, string(body))
			if places == 1 {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			fmt.Fprintf(w, `{"code":"00000","msg":"success","requestTime":%d,"data":{"orderId":"1234567890","clientOid":"tr-abc-1-0"}}`, v.Now().UnixMilli())
		case "/api/v2/mix/order/detail":
			lookups++
			if got := r.URL.Query().Get("clientOid"); got != "tr-abc-1-0" {
				t.Errorf("lookup by clientOid %q", got)
			}
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"code":"40109","msg":"The data of the order cannot be found, please confirm the order number","requestTime":%d,"data":null}`, v.Now().UnixMilli())
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"code":"40404","msg":"Request URL NOT FOUND","requestTime":0,"data":null}`)
		}
	}))
	defer srv.Close()
	c, err := exchange.NewClient(exchange.ClientOptions{BaseURL: srv.URL, Clock: v,
		Credentials: exchange.Credentials{APIKey: "k", Secret: "s", Passphrase: "p"},
		HTTPClient:  &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	d := NewDispatcher(DispatcherOptions{Venue: c, Clock: v})
	var leg Leg
	drive(t, v, func() { leg = d.Place(context.Background(), "place_order", placeReq(), OrderCheck{}) })
	mu.Lock()
	defer mu.Unlock()
	if leg.Outcome != OK || !leg.Reconciled || len(leg.OrderIDs) != 1 || leg.OrderIDs[0] != "1234567890" {
		t.Fatalf("leg %+v, want OK and reconciled with order 1234567890", leg)
	}
	if places != 2 {
		t.Fatalf("%d place requests, want 2 (the lost one and one re-send)", places)
	}
	if lookups == 0 {
		t.Fatal("no lookup by clientOid before the re-send")
	}
	if placedOIDs[0] != placedOIDs[1] {
		t.Errorf("the re-send differs from the first request:\n%s\n%s", placedOIDs[0], placedOIDs[1])
	}
}
