package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.uber.org/zap"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// doctorRules trade TSLA (limit) and BTC (market) and read the stock order
// book (spread_bps) and the platform fills (volume) of TSLA.
const doctorRules = `
rules:
  - name: buy-tsla-on-tight-spread
    when: stock("TSLA").spread_bps < 8 && stock("TSLA").volume > 0 && position("TSLAUSDT", "long").size == 0
    actions:
      - place_order: {symbol: TSLAUSDT, open: long, type: limit, size: 1, price: 200}
  - name: btc-at-market
    when: position("BTCUSDT", "long").size == 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
`

// healthyInfo is the key-permission answer of the live venue's
// GET /api/v2/spot/account/info (documented shape), which engine sim does
// not serve: the test's front answers it for the keys given.
var healthyInfo = exchange.AccountInfo{UserID: "1000000001", IPs: "127.0.0.1", Authorities: []string{"coor", "cpor", "coow", "cpow"}}

// doctorVenueFront serves engine sim's handler behind a front that counts
// every request that would change the account, and answers the key
// permissions the simulator lacks. The simulator runs on clk.
type doctorVenueFront struct {
	url       string
	mutating  atomic.Int64
	clk       *clock.Virtual
	simulated *sim.Exchange
}

func newDoctorVenue(t *testing.T, sc *sim.Scenario, info map[string]exchange.AccountInfo) *doctorVenueFront {
	t.Helper()
	f := &doctorVenueFront{}
	venue := simtest.NewRig(t, simtest.RigOptions{Scenario: sc, After: 90 * time.Minute, HTTP: true,
		Server: server.Options{DisableRateLimits: true},
		Front: func(_ *simtest.Rig, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if op, ok := exchange.OpForPath(r.Method, r.URL.Path); r.Method != http.MethodGet || ok && op.Mutating {
					f.mutating.Add(1)
				}
				if a, ok := info[r.Header.Get("ACCESS-KEY")]; ok && r.URL.Path == exchange.AccountInfoOp().Path {
					data, _ := json.Marshal(a)
					body, _ := json.Marshal(exchange.Envelope{Code: exchange.CodeSuccess, Msg: "success", RequestTime: exchange.MillisOf(f.clk.Now()), Data: data})
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(body)
					return
				}
				h.ServeHTTP(w, r)
			})
		}})
	f.url, f.clk, f.simulated = venue.URL, venue.Virtual, venue.Exchange
	return f
}

func demoCreds(key string) map[string]string {
	secret, pass := strings.Replace(key, "-key", "-secret", 1), strings.Replace(key, "-key", "-passphrase", 1)
	return map[string]string{envAPIKey: key, envSecret: secret, envPassphrase: pass}
}

// TestDoctorGolden runs engine doctor against engine sim in a healthy
// account and in broken ones, and compares the checklists with
// testdata/doctor/*.golden (go test -run TestDoctorGolden -update).
func TestDoctorGolden(t *testing.T) {
	t.Parallel()
	withoutStockWhitelist := func(sc *sim.Scenario) {
		var perms []exchange.Permission
		for _, p := range sc.Accounts[0].Permissions {
			if p != exchange.PermStockWhitelist {
				perms = append(perms, p)
			}
		}
		sc.Accounts[0].Permissions = perms
	}
	withExposure := func(sc *sim.Scenario) {
		sc.Accounts[0].Positions = append(sc.Accounts[0].Positions, sim.PositionSpec{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures,
			HoldSide: exchange.Long, Size: decimal.RequireFromString("0.5"), OpenPrice: decimal.RequireFromString("60000"), MarginMode: exchange.Crossed})
		sc.Accounts[0].Orders = append(sc.Accounts[0].Orders, sim.OrderSpec{Symbol: "TSLAUSDT", ProductType: exchange.USDTFutures,
			MarginMode: exchange.Crossed, Side: exchange.Buy, OrderType: exchange.Limit, Price: "100", Size: "1", Force: exchange.GTC, ClientOID: "manual-1"})
	}
	tests := []struct {
		name     string
		key      string // demo-key (one-way) unless set
		secret   string // overrides the key's secret
		skew     time.Duration
		rules    string
		scenario func(*sim.Scenario)
		info     map[string]exchange.AccountInfo // nil: the healthy answer for the key
		wantExit int
	}{
		{name: "healthy", rules: doctorRules, wantExit: exitOK},
		{name: "no-rules", wantExit: exitOK},
		{name: "bad-key", key: "not-a-key", rules: doctorRules, wantExit: exitFail},
		{name: "bad-secret", secret: "wrong-secret", rules: doctorRules, wantExit: exitFail},
		{name: "skewed-clock", skew: 45 * time.Second, rules: doctorRules, wantExit: exitFail},
		{name: "slightly-skewed-clock", skew: -3 * time.Second, rules: doctorRules, wantExit: exitOK},
		{name: "symbol-missing", rules: doctorRules + `
  - name: eth-typo
    when: position("BTCUSDT", "long").size > 0
    actions:
      - place_order: {symbol: ETHUSDX, open: long, type: market, size: 0.1}
`, wantExit: exitFail},
		{name: "stock-data-refused", rules: doctorRules, scenario: withoutStockWhitelist, wantExit: exitOK},
		{name: "hedge-rules-one-way-account", rules: `
defaults:
  position_mode: hedge_mode
` + doctorRules, wantExit: exitFail},
		{name: "one-way-rules-hedge-account", key: "demo-hedge-key", rules: `
rules:
  - name: raw-reduce-only
    when: position("BTCUSDT", "long").size > 0
    actions:
      - place_order: {symbol: BTCUSDT, side: sell, reduce_only: true, type: market, size: 0.01}
`, wantExit: exitFail},
		{name: "sizes-below-minimum", rules: `
rules:
  - name: tiny
    when: position("BTCUSDT", "long").size == 0
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.00001}
  - name: cheap
    when: position("ETHUSDT", "long").size == 0
    actions:
      - place_order: {symbol: ETHUSDT, open: long, type: limit, size: 0.01, price: 100}
`, wantExit: exitFail},
		{name: "open-position-and-order", rules: doctorRules, scenario: withExposure, wantExit: exitOK},
		{name: "permissions-unknown", rules: doctorRules, info: map[string]exchange.AccountInfo{}, wantExit: exitOK},
		{name: "permissions-withdraw", rules: doctorRules, info: map[string]exchange.AccountInfo{"demo-key": {
			IPs: "127.0.0.1", Authorities: []string{"coor", "cpor", "coow", "cpow", "wwow"}}}, wantExit: exitFail},
		{name: "permissions-read-only", rules: doctorRules, info: map[string]exchange.AccountInfo{"demo-key": {
			Authorities: []string{"coor", "cpor"}}}, wantExit: exitFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := sim.Demo()
			if tt.scenario != nil {
				tt.scenario(sc)
			}
			key := tt.key
			if key == "" {
				key = "demo-key"
			}
			info := tt.info
			if info == nil {
				info = map[string]exchange.AccountInfo{key: healthyInfo}
			}
			f := newDoctorVenue(t, sc, info)
			env := demoCreds(key)
			if tt.secret != "" {
				env[envSecret] = tt.secret
			}
			var rulesDir []string
			if tt.rules != "" {
				rulesDir = []string{writeRules(t, tt.rules)}
			}
			var out bytes.Buffer
			e := &cliEnv{stdout: &out, stderr: &out, getenv: func(k string) string { return env[k] }}
			rep, err := runDoctor(context.Background(), e, f.url, rulesDir, clock.NewVirtual(f.clk.Now().Add(tt.skew)), zap.NewNop())
			if err != nil {
				t.Fatal(err)
			}
			if err := rep.Write(&out); err != nil {
				t.Fatal(err)
			}
			code := exitOK
			if rep.Blocked() {
				code = exitFail
			}
			if code != tt.wantExit {
				t.Errorf("exit %d, want %d", code, tt.wantExit)
			}
			if n := f.mutating.Load(); n != 0 {
				t.Errorf("%d mutating requests reached the venue", n)
			}
			got := out.String()
			got = strings.ReplaceAll(got, f.url, "http://SIM")
			if len(rulesDir) > 0 {
				got = strings.ReplaceAll(got, rulesDir[0], "RULES")
			}
			for _, s := range []string{env[envAPIKey], env[envSecret], env[envPassphrase]} {
				if strings.Contains(got, s) {
					t.Fatalf("the checklist shows a secret")
				}
			}
			compareGolden(t, filepath.Join("testdata", "doctor", tt.name+".golden"), got)
		})
	}
}

// TestDoctorVenueIsReadOnly shows that the client the doctor holds
// refuses an order before anything is sent, even through a type assertion.
func TestDoctorVenueIsReadOnly(t *testing.T) {
	t.Parallel()
	f := newDoctorVenue(t, sim.Demo(), nil)
	v, err := readOnlyDoctorVenue(exchange.ClientOptions{BaseURL: f.url, Credentials: exchange.Credentials{APIKey: "demo-key", Secret: "demo-secret", Passphrase: "demo-passphrase"},
		Clock: f.clk}, &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	trader, ok := v.(exchange.Trader)
	if !ok {
		t.Fatal("the doctor's venue has no order methods at all; this test checks the transport refusal")
	}
	_, err = trader.PlaceOrder(context.Background(), exchange.PlaceOrderRequest{Symbol: "BTCUSDT", ProductType: exchange.USDTFutures,
		MarginMode: exchange.Crossed, MarginCoin: "USDT", Size: "0.01", Side: exchange.Buy, OrderType: exchange.Market})
	if !errors.Is(err, exchange.ErrReadOnly) {
		t.Fatalf("PlaceOrder: %v, want ErrReadOnly", err)
	}
	if n := f.mutating.Load(); n != 0 {
		t.Fatalf("%d mutating requests reached the venue", n)
	}
}

// TestDoctorFlags covers the command line.
func TestDoctorFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"no venue", nil, nil, exitUsage, "--venue is required"},
		{"stray argument", nil, []string{"--venue", "live", "x"}, exitUsage, "unexpected argument"},
		{"no credentials", nil, []string{"--venue", "http://127.0.0.1:1"}, exitFail, "needs credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			e := &cliEnv{stdout: &out, stderr: &errb, getenv: func(k string) string { return tt.env[k] }}
			code := dispatch(context.Background(), e, append([]string{"doctor"}, tt.args...))
			if code != tt.code || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errb.String(), tt.code, tt.want)
			}
		})
	}
}

// TestPreflight is what engine run --venue live|demo does before it
// trades: no blocker lets it start, a blocker stops it with the checklist.
// The venue's clock follows the wall clock, as engine sim's does.
func TestPreflight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		key   string
		start bool
	}{
		{"healthy", "demo-key", true},
		{"bad key", "not-a-key", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			venueURL := wallClockSim(t)
			env := demoCreds(tt.key)
			var errb bytes.Buffer
			e := &cliEnv{stdout: &errb, stderr: &errb, getenv: func(k string) string { return env[k] }}
			if got := preflight(context.Background(), e, venueURL, []string{writeRules(t, doctorRules)}, zap.NewNop()); got != tt.start {
				t.Fatalf("preflight %v, want %v:\n%s", got, tt.start, errb.String())
			}
			if !tt.start && !strings.Contains(errb.String(), "not started") {
				t.Errorf("no refusal in:\n%s", errb.String())
			}
		})
	}
}

// wallClockSim serves the demo scenario on loopback with its clock at the
// wall clock's now, as engine sim does, for commands that stamp requests
// with real time; it returns the server's URL.
func wallClockSim(t *testing.T) string {
	t.Helper()
	return simtest.NewRig(t, simtest.RigOptions{Start: time.Now(), Speed: 1, HTTP: true,
		Server: server.Options{AuthClock: clock.Real{}, DisableRateLimits: true}}).URL
}
