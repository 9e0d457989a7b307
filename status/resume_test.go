package status_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/status"
)

// haltedBoard is a board over a guard halted by hand, whose Resume lifts
// it and records who asked.
func haltedBoard(t *testing.T) (*status.Board, *actions.Guard, *[]string) {
	t.Helper()
	now := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	g := actions.NewGuard(actions.GuardOptions{Now: func() time.Time { return now }})
	if err := g.Halt(actions.Halt{Rule: "stop-all", Reason: "three losses", At: now}); err != nil {
		t.Fatal(err)
	}
	var asked []string
	b := status.NewBoard(status.BoardOptions{Engine: oddEngine{}, Guard: g, Recorder: status.NewRecorder(status.RecorderOptions{}),
		Clock: clock.NewVirtual(now), Resume: func(from string) error { asked = append(asked, from); return g.Resume() }})
	return b, g, &asked
}

func TestResumeFromThisMachineOnly(t *testing.T) {
	tests := []struct {
		name, remote, host string
		header             map[string]string
		form               bool
		code               int
	}{
		{"engine resume on the machine", "127.0.0.1:50000", "127.0.0.1:9090", nil, false, http.StatusOK},
		{"localhost by name", "[::1]:50000", "localhost:9090", nil, false, http.StatusOK},
		{"the status page's button", "127.0.0.1:50000", "127.0.0.1:9090",
			map[string]string{"Origin": "http://127.0.0.1:9090", "Sec-Fetch-Site": "same-origin"}, true, http.StatusSeeOther},
		{"another machine", "192.0.2.7:50000", "192.0.2.1:9090", nil, false, http.StatusForbidden},
		{"a web page rebinding its name to 127.0.0.1", "127.0.0.1:50000", "evil.example:9090", nil, false, http.StatusForbidden},
		{"another site's page in the trader's browser", "127.0.0.1:50000", "127.0.0.1:9090",
			map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, true, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, g, asked := haltedBoard(t)
			var body *strings.Reader
			if tt.form {
				body = strings.NewReader(url.Values{}.Encode())
			} else {
				body = strings.NewReader("")
			}
			req := httptest.NewRequest(http.MethodPost, "http://"+tt.host+status.ResumePath, body)
			req.RemoteAddr, req.Host = tt.remote, tt.host
			if tt.form {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			status.Handler(b).ServeHTTP(rec, req)
			if rec.Code != tt.code {
				t.Fatalf("HTTP %d %s, want %d", rec.Code, rec.Body, tt.code)
			}
			on, why := g.Killed()
			lifted := tt.code == http.StatusOK || tt.code == http.StatusSeeOther
			if on == lifted || lifted != (len(*asked) == 1) {
				t.Fatalf("after HTTP %d: halted %v (%s), asked %v", rec.Code, on, why, *asked)
			}
			switch tt.code {
			case http.StatusSeeOther:
				if loc := rec.Header().Get("Location"); loc != "/status" {
					t.Errorf("sent to %q, want back to /status", loc)
				}
			case http.StatusOK:
				var k status.KillSwitch
				if err := json.Unmarshal(rec.Body.Bytes(), &k); err != nil || k.On {
					t.Errorf("answer %s (%v), want the kill switch off", rec.Body, err)
				}
				if (*asked)[0] != tt.remote {
					t.Errorf("logged as from %q, want %q", (*asked)[0], tt.remote)
				}
			}
		})
	}
}

func TestResumeClient(t *testing.T) {
	b, g, _ := haltedBoard(t)
	srv := httptest.NewServer(status.Handler(b))
	defer srv.Close()
	page, err := status.FetchSnapshot(context.Background(), srv.Client(), srv.URL)
	if err != nil || !page.KillSwitch.On || !page.KillSwitch.Resumable {
		t.Fatalf("before: %+v, %v; want halted and resumable", page.KillSwitch, err)
	}
	k, err := status.Resume(context.Background(), srv.Client(), srv.URL)
	if err != nil || k.On {
		t.Fatalf("Resume: %+v, %v", k, err)
	}
	if on, _ := g.Killed(); on {
		t.Error("the guard still halts")
	}
	// A board that cannot resume (no Resume) has no such endpoint.
	plain := httptest.NewServer(status.Handler(status.NewBoard(status.BoardOptions{Engine: oddEngine{},
		Recorder: status.NewRecorder(status.RecorderOptions{}), Clock: clock.NewVirtual(time.Unix(0, 0))})))
	defer plain.Close()
	if _, err := status.Resume(context.Background(), plain.Client(), plain.URL); err == nil || errors.Is(err, status.ErrResumeRefused) {
		t.Errorf("Resume on a board without it: %v, want an HTTP error", err)
	}
}

func TestStatusPageOffersTheLift(t *testing.T) {
	b, _, _ := haltedBoard(t)
	var buf strings.Builder
	if err := status.WritePage(&buf, b.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<form method="post" action="/api/resume"`) || !strings.Contains(buf.String(), "three losses") {
		t.Errorf("the page of a halted engine has no lift button:\n%s", buf.String())
	}
}
