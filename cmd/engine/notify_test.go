package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// hookToken is the secret part of the test webhook's URL.
const hookToken = "PqWmZrXtKvNj"

// TestRunNotifies runs the embedded demo with a notify file whose webhook
// URL (holding a token) comes from the credentials file: the rule's notify
// message, its firing and the stop reach the loopback receiver, and no part
// of the token shows in the log.
func TestRunNotifies(t *testing.T) {
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
