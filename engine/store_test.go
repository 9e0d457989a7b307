package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
)

func TestDecodeStates(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string // "" for a file that reads
	}{
		{"version 1", `{"version":1,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","once_period":"2026-03-09","firings":1}}}`, ""},
		{"no rules yet", `{"version":1,"rules":{}}`, ""},
		{"rules null", `{"version":1,"rules":null}`, `"rules" is missing or null`},
		{"rules missing", `{"version":1}`, `"rules" is missing or null`},
		{"a rule null", `{"version":1,"rules":{"a":null}}`, `rule "a": null state`},
		{"version 2", `{"version":2,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":1,"orders_at":"2026-03-09T14:30:24Z"}}}`, ""},
		{"version 1 with orders_at", `{"version":1,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":1,"orders_at":"2026-03-09T14:30:24Z"}}}`, "orders_at is a version 2 field"},
		{"version 3", `{"version":3,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":5,"firings_day":"2026-03-09","firings_today":2}}}`, ""},
		{"version 2 with firings_today", `{"version":2,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":5,"firings_day":"2026-03-09","firings_today":2}}}`, "version 3 fields"},
		{"more today than ever", `{"version":3,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":1,"firings_day":"2026-03-09","firings_today":2}}}`, "not between 0 and"},
		{"count without day", `{"version":3,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":1,"firings_today":1}}}`, "go together"},
		{"day not a date", `{"version":3,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":1,"firings_day":"03/09/2026","firings_today":1}}}`, "not a date"},
		{"no version", `{"rules":{}}`, "not a version 1, 2 or 3"},
		{"version 0", `{"version":0,"rules":{}}`, "not a version 1, 2 or 3"},
		{"version 4", `{"version":4,"rules":{}}`, "not a version 1, 2 or 3"},
		{"orders but never fired", `{"version":2,"rules":{"a":{"phase":"inactive","since":"2026-03-09T14:30:00Z","firings":0,"orders_at":"2026-03-09T14:30:24Z"}}}`, "never fired"},
		{"not json", `{not json`, "invalid character"},
		{"two values", `{"version":1,"rules":{}} {}`, "data after"},
		{"unknown field", `{"version":1,"rules":{},"extra":1}`, "unknown field"},
		{"unknown phase", `{"version":1,"rules":{"a":{"phase":"armed","since":"2026-03-09T14:30:00Z","firings":0}}}`, `unknown phase "armed"`},
		{"negative firings", `{"version":1,"rules":{"a":{"phase":"inactive","since":"2026-03-09T14:30:00Z","firings":-1}}}`, "negative firing count"},
		{"fired but never", `{"version":1,"rules":{"a":{"phase":"inactive","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":0}}}`, "never fired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeStates([]byte(tt.file))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want == "" && got == nil:
				t.Fatal("nil states")
			case tt.want != "" && (err == nil || !errors.Is(err, ErrBadStateFile) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want ErrBadStateFile with %q", err, tt.want)
			}
		})
	}
}

// TestStoreKeepsOrdersAt: a saved state reads back the same, orders_at
// and the day's firing count included, in a version 3 file; a version 1
// file written before they existed still loads, without them.
func TestStoreKeepsOrdersAt(t *testing.T) {
	dir := t.TempDir()
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)
	want := map[string]RuleState{
		"late":   {Phase: PhaseFiring, Since: at, LastFired: at, Firings: 1, OrdersAt: at.Add(24 * time.Second)},
		"ontime": {Phase: PhaseCooldown, Since: at, LastFired: at, Firings: 2, FiringsDay: "2026-03-09", FiringsToday: 2},
	}
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"version": 3`) || strings.Count(string(b), `"orders_at"`) != 1 || strings.Count(string(b), `"firings_today": 2`) != 1 {
		t.Errorf("saved file, want version 3, one orders_at and one firings_today:\n%s", b)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range want {
		if !got[name].OrdersAt.Equal(st.OrdersAt) || !got[name].LastFired.Equal(st.LastFired) || got[name].Firings != st.Firings || got[name].Phase != st.Phase {
			t.Errorf("%s read back as %+v, want %+v", name, got[name], st)
		}
	}
	old := `{"version":1,"rules":{"a":{"phase":"cooldown","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","firings":3}}}`
	if err := os.WriteFile(filepath.Join(dir, stateFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(); err != nil || got["a"].Firings != 3 || !got["a"].OrdersAt.IsZero() {
		t.Fatalf("version 1 file: %+v, %v", got, err)
	}
}

// TestStoreLoadSaysWhatToDo: the error of a bad file names it and says
// what moving it away costs.
func TestStoreLoadSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	s, err := NewStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"version":1,"rules":null}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Load()
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, stateFile)) || !strings.Contains(err.Error(), "may then fire again") {
		t.Fatalf("error %v", err)
	}
}

func TestRuleStateFuture(t *testing.T) {
	now := time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		st   RuleState
		want string
	}{
		{"past", RuleState{Since: now.Add(-time.Hour), LastFired: now.Add(-time.Hour), Firings: 1}, ""},
		{"within the skew", RuleState{Since: now.Add(30 * time.Second), Firings: 0}, ""},
		{"fired tomorrow", RuleState{Since: now.Add(-time.Hour), LastFired: now.Add(24 * time.Hour), Firings: 1}, "last_fired 2026-03-10T14:30:00Z"},
		{"since tomorrow", RuleState{Since: now.Add(24 * time.Hour)}, "since 2026-03-10T14:30:00Z"},
		{"orders tomorrow", RuleState{Since: now.Add(-time.Hour), LastFired: now.Add(-time.Hour), Firings: 1, OrdersAt: now.Add(24 * time.Hour)}, "orders_at 2026-03-10T14:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fixed, what := tt.st.Future(now)
			if what != tt.want {
				t.Fatalf("Future = %q, want %q", what, tt.want)
			}
			if fixed.LastFired.After(now.Add(clockSkew)) || fixed.Since.After(now.Add(clockSkew)) || fixed.OrdersAt.After(now.Add(clockSkew)) {
				t.Errorf("fixed state %+v is still in the future", fixed)
			}
		})
	}
}

func TestAccountDir(t *testing.T) {
	const key = "bg_0123456789abcdef-live-key"
	live := AccountDir("/s", "https://api.bitget.com", key)
	for _, other := range []string{
		AccountDir("/s", "https://api.bitget.com", "another-key"),
		AccountDir("/s", "http://127.0.0.1:8080", key),
		AccountDir("/s", "embedded-demo", key),
	} {
		if other == live {
			t.Errorf("%s is shared by two venues or accounts", live)
		}
	}
	if strings.Contains(live, key) || strings.Contains(live, "0123456789abcdef") {
		t.Errorf("%s shows the key", live)
	}
	if want := "/s/api.bitget.com/"; !strings.HasPrefix(live, want) {
		t.Errorf("%s, want it under %s", live, want)
	}
	if got := AccountDir("/s", "http://127.0.0.1:8080", key); strings.Contains(got, ":") {
		t.Errorf("%s: a venue's port makes a path with a colon", got)
	}
}

func TestLockDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acct")
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A second lock, even from this process, is refused (flock locks an
	// open file, not a process) and names the holder's pid.
	_, err = LockDir(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := LockDir(dir)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	_ = l2.Unlock()
}

func TestJournalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	j, err := OpenJournal(dir, StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)
	in := &Intent{ID: "r#1@x", Rule: "r", At: at, Seq: 1, Once: OncePerDay, Period: "2026-03-09",
		State: RuleState{Phase: PhaseFiring, Since: at, LastFired: at, Firings: 1, OncePeriod: "2026-03-09"},
		Legs:  []IntentLeg{{Plan: actions.Plan{Kind: "place_order", Op: exchange.OpPlaceOrder, Request: exchange.PlaceOrderRequest{ClientOID: "tr-a"}, Symbol: "BTCUSDT", ClientOIDs: []string{"tr-a"}}}}}
	if err := j.Add(at, in); err != nil {
		t.Fatal(err)
	}
	j2, err := OpenJournal(dir, StateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := j2.Open()
	if len(got) != 1 || got[0].ID != in.ID || got[0].State != in.State || !got[0].open() || got[0].Legs[0].Plan.ClientOIDs[0] != "tr-a" {
		t.Fatalf("read back %+v", got)
	}
	if err := j2.Update(at, in.ID, 0, []actions.Leg{{Outcome: actions.OK, ClientOIDs: []string{"tr-a"}}}); err != nil {
		t.Fatal(err)
	}
	if j2.Open()[0].open() {
		t.Error("a leg answered ok is still open")
	}
	if err := j2.Close(at, in.ID); err != nil {
		t.Fatal(err)
	}
	j3, err := OpenJournal(dir, StateOptions{})
	if err != nil || len(j3.Open()) != 0 {
		t.Fatalf("after close: %v, %v", j3.Open(), err)
	}
}

// TestJournalWriteFault: a failed write keeps the intents and reports since
// when writes fail; the next write that works clears it.
func TestJournalWriteFault(t *testing.T) {
	fail := true
	j, err := OpenJournal(t.TempDir(), StateOptions{Fault: func(string) error {
		if fail {
			return errors.New("injected: no space left on device")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 9, 14, 30, 0, 0, time.UTC)
	if err := j.Add(at, &Intent{ID: "a", Rule: "r"}); err == nil {
		t.Fatal("write worked through the fault")
	}
	if since, err := j.Failing(); err == nil || !since.Equal(at) {
		t.Fatalf("Failing = %v, %v", err, since)
	}
	_ = j.Flush(at.Add(time.Second))
	if since, _ := j.Failing(); !since.Equal(at) {
		t.Errorf("a second failure moved the start to %v", since)
	}
	fail = false
	if err := j.Flush(at.Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Failing(); err != nil || len(j.Open()) != 1 {
		t.Fatalf("after the fault: %v, %d intents", err, len(j.Open()))
	}
}

func TestDecodeJournal(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"empty", `{"version":1,"intents":[]}`, ""},
		{"no intents", `{"version":1,"intents":null}`, ""},
		{"version 0", `{"intents":[]}`, "not a version 1"},
		{"null intent", `{"version":1,"intents":[null]}`, "intents[0] is null"},
		{"no id", `{"version":1,"intents":[{"rule":"r","legs":[]}]}`, "no id or rule"},
		{"twice", `{"version":1,"intents":[{"id":"a","rule":"r"},{"id":"a","rule":"r"}]}`, "listed twice"},
		{"leg without op", `{"version":1,"intents":[{"id":"a","rule":"r","legs":[{"plan":{"kind":"place_order"}}]}]}`, "no operation"},
		{"unknown field", `{"version":1,"intents":[],"x":1}`, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeJournal([]byte(tt.file))
			if tt.want == "" && err != nil || tt.want != "" && (!errors.Is(err, ErrBadStateFile) || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzDecodeStates: any bytes give states or an ErrBadStateFile, never a
// panic, and states that decode encode and decode to the same.
func FuzzDecodeStates(f *testing.F) {
	f.Add([]byte(`{"version":1,"rules":{"a":{"phase":"firing","since":"2026-03-09T14:30:00Z","last_fired":"2026-03-09T14:30:00Z","once_period":"2026-03-09","firings":1}}}`))
	f.Add([]byte(`{"version":1,"rules":null}`))
	f.Add([]byte(`{"version":1,"rules":{"a":{"phase":"pending","since":"9999-12-31T23:59:59Z","firings":0}}}`))
	f.Add([]byte(`{"version":1e400}`))
	f.Add([]byte(`{"version":2,"rules":{"a":{"phase":"cooldown","since":"2026-03-09T14:30:05Z","last_fired":"2026-03-09T14:30:00Z","firings":1,"orders_at":"2026-03-09T14:30:24Z"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := DecodeStates(b)
		if err != nil {
			if !errors.Is(err, ErrBadStateFile) {
				t.Fatalf("error %v is not ErrBadStateFile", err)
			}
			return
		}
		again, err := json.Marshal(storeFile{Version: storeVersion, Rules: rs})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeStates(again); err != nil {
			t.Fatalf("states that decoded do not decode again: %v\n%s", err, again)
		}
	})
}

// FuzzDecodeJournal: any bytes give intents or an ErrBadStateFile, never a
// panic; intents that decode are written and read back alike.
func FuzzDecodeJournal(f *testing.F) {
	f.Add([]byte(`{"version":1,"intents":[{"id":"r#1@x","rule":"r","at":"2026-03-09T14:30:00Z","seq":1,"state":{"phase":"firing","since":"2026-03-09T14:30:00Z","firings":1},"legs":[{"plan":{"kind":"place_order","op":"place-order","request":{"clientOid":"tr-a"},"clientOids":["tr-a"]},"legs":[{"kind":"place_order","op":"place-order","request":{},"outcome":"unsettled","unsettled":["tr-a"]}]}]}]}`))
	f.Add([]byte(`{"version":1,"intents":[null]}`))
	f.Add([]byte(`{"version":1,"intents":[{"id":"a","rule":"r","legs":[{"plan":{"kind":"log","done":{"kind":"log","op":"","request":null,"outcome":"ok"}}}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ins, err := DecodeJournal(b)
		if err != nil {
			if !errors.Is(err, ErrBadStateFile) {
				t.Fatalf("error %v is not ErrBadStateFile", err)
			}
			return
		}
		again, err := json.Marshal(journalDisk{Version: 1, Intents: ins})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeJournal(again); err != nil {
			t.Fatalf("intents that decoded do not decode again: %v\n%s", err, again)
		}
	})
}
