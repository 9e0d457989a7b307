package backtest

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// TestRecordReplayRoundTrip records two minutes of the demo simulator over
// HTTP (engine sim's server on 127.0.0.1, on a virtual clock that the
// server and the client share), then backtests the small rule set on the
// recording: the rules must fire and fill at the recorded prices.
func TestRecordReplayRoundTrip(t *testing.T) {
	t.Parallel()
	sc := sim.Demo()
	start := sc.Clock.Start.Add(29 * time.Minute) // 09:29 EDT: the regular session opens in the recording
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, Start: start})
	x, v := simRig.Exchange, simRig.Virtual
	srv := httptest.NewServer(server.New(server.Options{Backend: server.SimBackend(x), Clock: v}))
	defer srv.Close()
	client, err := exchange.NewReadOnlyClient(exchange.ClientOptions{BaseURL: srv.URL, Clock: v,
		Credentials: exchange.Credentials{APIKey: "demo-key", Secret: "demo-secret", Passphrase: "demo-passphrase"},
		Limiter:     exchange.NewLimiter(exchange.LimiterOptions{Clock: v})})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	type result struct {
		st  RecordStats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := Record(ctx, RecordOptions{Venue: client, VenueName: srv.URL, Clock: v, Out: &out, RuleDirs: []string{"testdata/rules"}})
		done <- result{st, err}
	}()
	const seconds = 120
	for i := 0; i < seconds; i++ {
		// The recorder waits on the clock once per second; waiting for it
		// to wait is the only synchronisation, no sleeping.
		if !v.WaitForWaiters(1, ctx.Done()) {
			t.Fatal("the recorder stopped waiting on the clock")
		}
		v.Advance(time.Second)
	}
	v.WaitForWaiters(1, ctx.Done())
	cancel()
	res := <-done
	if res.err != nil {
		t.Fatalf("record: %v", res.err)
	}

	rec, err := ParseRecording(bytes.NewReader(out.Bytes()), "roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != res.st.Lines || got < seconds {
		t.Fatalf("recording has %d lines, Record reported %d, want at least %d", got, res.st.Lines, seconds)
	}
	if n := len(rec.tickers["BTCUSDT"]); n < seconds {
		t.Errorf("%d BTCUSDT tickers recorded in %ds, want one a second", n, seconds)
	}
	if len(rec.books["TSLAUSDT"]) == 0 || len(rec.states) == 0 || rec.cal == nil || len(rec.info) == 0 {
		t.Errorf("the recording misses what the rules read: %d TSLA books, %d states, calendar %v, %d stock pairs",
			len(rec.books["TSLAUSDT"]), len(rec.states), rec.cal != nil, len(rec.info))
	}
	if !rec.Header.Start.Equal(start) || rec.End.Sub(start) < (seconds-1)*time.Second {
		t.Errorf("recording spans %s to %s, want %s plus %ds", stamp(rec.Header.Start), stamp(rec.End), stamp(start), seconds)
	}

	opts := Options{RuleDirs: []string{"testdata/rules"}}
	if err := rec.Apply(&opts); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	fired := map[string]int{}
	for _, f := range rep.Firings {
		fired[f.Rule]++
	}
	if fired["open-btc-when-flat"] == 0 || fired["tsla-bid-in-session"] == 0 {
		t.Fatalf("replay fired %v; want open-btc-when-flat (flat account) and tsla-bid-in-session (the recording crosses 09:30 EDT)", fired)
	}
	// The first BTC order is a market buy: it fills whole at the recorded
	// ask of its second.
	var buy *Fill
	for i := range rep.Fills {
		if rep.Fills[i].Symbol == "BTCUSDT" && rep.Fills[i].Side == "buy" {
			buy = &rep.Fills[i]
			break
		}
	}
	if buy == nil {
		t.Fatalf("no BTCUSDT buy fill in the replay: %+v", rep.Fills)
	}
	q, ok := latest(rec.tickers["BTCUSDT"], parseStamp(buy.Time))
	if !ok || q.ask.String() != buy.Price || buy.Size != "0.05" {
		t.Errorf("buy fill %s @ %s at %s, want 0.05 at the recorded ask %s", buy.Size, buy.Price, buy.Time, q.ask)
	}
}

// TestParseRecordingRejects checks the errors of a bad recording.
func TestParseRecordingRejects(t *testing.T) {
	hdr := `{"format":"tickrules-recording","version":1,"start":"2026-03-09T13:00:00Z"}` + "\n"
	cases := []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"not a recording", `{"format":"x","version":1}` + "\n", `format "x" version 1`},
		{"future version", `{"format":"tickrules-recording","version":2,"start":"2026-03-09T13:00:00Z"}` + "\n", "version 2"},
		{"no start", `{"format":"tickrules-recording","version":1}` + "\n", "no start"},
		{"bad line", hdr + "{\n", "x.jsonl:2"},
		{"unknown op", hdr + `{"t":"2026-03-09T13:00:01Z","op":"place-order","data":{}}` + "\n", "not an operation a recording holds"},
		{"time goes back", hdr + `{"t":"2026-03-09T12:00:00Z","op":"market-states","data":[]}` + "\n", "before the previous line"},
		{"bad ticker", hdr + `{"t":"2026-03-09T13:00:01Z","op":"ticker","key":"BTCUSDT","data":[{"lastPr":"x"}]}` + "\n", "lastPr"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRecording(strings.NewReader(c.in), "x.jsonl")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// FuzzParseRecording: a recording is outside input; no input may panic,
// and a recording that parses must give a valid scenario.
func FuzzParseRecording(f *testing.F) {
	hdr := `{"format":"tickrules-recording","version":1,"start":"2026-03-09T13:00:00Z","contracts":[],"accounts":[]}` + "\n"
	f.Add(hdr)
	f.Add(hdr + `{"t":"2026-03-09T13:00:01Z","op":"ticker","key":"BTCUSDT","data":[{"lastPr":"91000.5","bidPr":"91000","askPr":"91001"}]}` + "\n")
	f.Add(hdr + `{"t":"2026-03-09T13:00:01Z","op":"stock-orderbook","key":"TSLAUSDT","data":{"bids":[["1","2"]],"asks":[],"ts":"1"}}` + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		rec, err := ParseRecording(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if _, err := rec.Scenario(); err != nil {
			return
		}
		m := rec.Market()
		m.PriceAt("BTCUSDT", rec.End)
		m.Book("BTCUSDT", rec.End, 3)
		m.FuturesOpen(rec.End, true)
		_, _ = m.StockFills("TSLAUSDT", rec.End, 5)
	})
}
