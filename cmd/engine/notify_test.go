package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
	"github.com/tickrules/tickrules/status"
)

// hookToken is the secret part of the test webhook's URL.
const hookToken = "PqWmZrXtKvNj"

// TestRunNotifies runs the embedded demo with a notify file whose webhook
// URL (holding a token) comes from the credentials file: the rule's notify
// message, its firing and the stop reach the loopback receiver, and no part
// of the token shows in the log.
func TestRunNotifies(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]string
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		if r.URL.Path == "/hook/"+hookToken {
			got = append(got, m)
		}
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	if err := os.WriteFile(creds, []byte("TICKRULES_HOOK_URL="+srv.URL+"/hook/"+hookToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	nfile := filepath.Join(dir, "notify.yaml")
	if err := os.WriteFile(nfile, []byte("notify:\n  targets:\n    - kind: webhook\n      url_env: TICKRULES_HOOK_URL\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := writeRules(t, `
rules:
  - name: at-the-open
    when: market.session == "regular"
    once: per_session
    actions:
      - notify: { message: "the session is {{ market.session }}" }
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
`)
	code, stderr := runWith(t, map[string]string{envCredsFile: creds}, "--rules", rules, "--notify", nfile, "--speed", "60", "--tick", "100ms",
		"--max-runtime", "4s", "--state-dir", t.TempDir(), "--log-format", "json")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	var events []string
	for _, m := range got {
		events = append(events, m["event"]+": "+m["text"])
	}
	all := strings.Join(events, "\n")
	for _, want := range []string{"notify: the session is regular", "rule_fired: fired (#1): place_order ok", "engine_stopped: engine stopped: 1 firings, 1 orders (0 failed, 0 blocked)"} {
		if !strings.Contains(all, want) {
			t.Errorf("the receiver lacks %q; got:\n%s", want, all)
		}
	}
	if !strings.Contains(stderr, `"msg":"notify","rule":"at-the-open","message":"the session is regular"`) {
		t.Errorf("the notify message is not logged:\n%s", stderr)
	}
	for i := 0; i+4 <= len(hookToken); i++ {
		if strings.Contains(stderr, hookToken[i:i+4]) {
			t.Fatalf("the log holds part of the webhook token:\n%s", stderr)
		}
	}
}

func TestRunNotifyFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		file string
		want string
	}{
		{"unknown key", write("typo.yaml", "notify:\n  targets:\n    - kind: telegram\n      chat: \"1\"\n"), "typo.yaml:4:7: unknown key \"chat\""},
		{"token not set", write("tg.yaml", "notify:\n  targets:\n    - kind: telegram\n      chat_id: \"1\"\n"), "TICKRULES_TELEGRAM_TOKEN is not set"},
		{"missing file", filepath.Join(dir, "nope.yaml"), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runWith(t, nil, "--rules", "examples/rules", "--notify", tt.file, "--max-runtime", "5s", "--state-dir", t.TempDir())
			if code != exitFail || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, tt.want)
			}
		})
	}
}

// TestEngineNotifierEvents: what engine run turns into notifications, in a
// dry run: the notify message, the firing, a failed and a blocked order in
// trader's words, stale data after the third failed read only, its recovery once, the stop.
func TestEngineNotifierEvents(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]string
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		got = append(got, m["event"]+" ["+m["rule"]+"] "+m["text"])
		mu.Unlock()
	}))
	defer srv.Close()
	nfile := filepath.Join(t.TempDir(), "notify.yaml")
	if err := os.WriteFile(nfile, []byte("notify:\n  targets:\n    - { kind: webhook, url: \""+srv.URL+"\", max_per_minute: 100 }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	env := &cliEnv{stderr: &errb, getenv: func(string) string { return "" }}
	e, err := openNotifier(env, nfile, true, newCLILogger(env))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)
	f := &engine.Firing{Rule: &rules.Rule{Name: "stop"}, At: at, Seq: 2, Legs: []actions.Leg{
		{Kind: "notify", Outcome: actions.OK, Note: "stop fired on TSLAUSDT"},
		{Kind: "place_order", Outcome: actions.Failed, Error: "insufficient margin"},
		{Kind: "place_order", Outcome: actions.Blocked, Error: "above max_notional"},
	}}
	orders := []status.OrderRecord{
		{At: at, Rule: "stop", Kind: "place_order", Symbol: "TSLAUSDT", Intent: "close long", Size: "2", Outcome: actions.Failed, Error: "insufficient margin"},
		{At: at, Rule: "stop", Kind: "place_order", Symbol: "TSLAUSDT", Intent: "open short", Size: "2", Price: "250", Outcome: actions.Blocked, Error: "above max_notional"},
	}
	e.firing(f, orders)
	for range 4 {
		e.fetched(marketdata.PartMarket, "", errors.New("timeout"))
	}
	e.fetched(marketdata.PartMarket, "", nil)
	e.fetched(marketdata.PartMarket, "", nil) // a second good read says nothing more
	e.fetched(marketdata.PartStockBook, "TSLA", errors.New("timeout"))
	e.fetched(marketdata.PartStockBook, "TSLA", nil) // one failure sent no warning, so no recovery either
	e.start(context.Background())
	e.stopped(context.Background(), at, status.Totals{Firings: 1, Orders: 2, OrdersFailed: 1, OrdersBlocked: 1})
	want := []string{
		"notify [stop] (dry run) stop fired on TSLAUSDT",
		"rule_fired [stop] (dry run) fired (#2): place_order error, place_order blocked",
		"order_failed [stop] (dry run) close long 2 TSLAUSDT (place_order) failed: insufficient margin",
		"guard_blocked [stop] (dry run) open short 2 TSLAUSDT at 250 (place_order) blocked: above max_notional",
		"data_stale [] (dry run) market: 3 reads in a row failed, rules reading it wait: timeout",
		"data_stale [] (dry run) market: reads work again after 4 failed in a row; rules reading it run again",
		"engine_stopped [] (dry run) engine stopped: 1 firings, 2 orders (1 failed, 1 blocked), 0 fills",
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(errb.String(), `"sent": 7`) {
		t.Errorf("no counts at the stop:\n%s", errb.String())
	}
}
