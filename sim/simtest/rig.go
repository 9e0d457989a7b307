package simtest

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// RigOptions say which simulator a test needs. The zero value is the demo
// scenario in-process, on a virtual clock at the scenario's start.
type RigOptions struct {
	// Scenario is the market and accounts simulated. Default: sim.Demo().
	Scenario *sim.Scenario
	// Start is when the clock starts. Default: the scenario's start.
	Start time.Time
	// After moves the start on: most engine tests want the demo's regular
	// session, 90 minutes after its 09:00 New York start.
	After time.Duration
	// Clock, when set, is the virtual clock the simulator runs on, for a
	// test that shares one clock between several parts; Start and After
	// are then ignored.
	Clock *clock.Virtual
	// Speed, when above zero, runs the simulator on a wall clock that
	// starts at Start and runs Speed times faster than real time, as
	// engine sim does: for tests of the command's run path, which has wall
	// clocks only. Zero means a virtual clock that moves only when the test
	// advances it.
	Speed float64

	// HTTP serves the simulator on a loopback httptest server, closed when
	// the test ends.
	HTTP bool
	// Server tunes the served simulator; the rig fills in Backend, and
	// Clock when it is nil.
	Server server.Options
	// Front, when set, wraps the server's handler: tests count, record or
	// reroute requests there. It gets the rig, to build for example a
	// second server with faults on the same simulator.
	Front func(r *Rig, served http.Handler) http.Handler
}

// Rig is one fresh simulator built for one test by NewRig.
type Rig struct {
	Scenario *sim.Scenario
	Exchange *sim.Exchange
	// Clock is what the simulator runs on: Virtual or Wall.
	Clock exchange.Clock
	// Virtual is the clock when RigOptions.Speed is zero, else nil.
	Virtual *clock.Virtual
	// Wall is the clock when RigOptions.Speed is above zero, else nil.
	Wall *server.WallClock
	// Server is the served handler (before any Front) and URL its
	// loopback address; both empty without RigOptions.HTTP.
	Server *server.Server
	URL    string
}

// NewRig builds the simulator o describes; a setup error fails the test.
// Everything it starts stops when the test ends (t.Cleanup), so that tests
// share nothing and may run in parallel.
func NewRig(t testing.TB, o RigOptions) *Rig {
	t.Helper()
	sc := o.Scenario
	if sc == nil {
		sc = sim.Demo()
	}
	start := o.Start
	if start.IsZero() {
		start = sc.Clock.Start
	}
	start = start.Add(o.After)
	r := &Rig{Scenario: sc}
	switch {
	case o.Clock != nil:
		r.Virtual, r.Clock = o.Clock, o.Clock
	case o.Speed > 0:
		w, err := server.NewWallClock(start, o.Speed)
		if err != nil {
			t.Fatal(err)
		}
		r.Wall, r.Clock = w, w
	default:
		r.Virtual = clock.NewVirtual(start)
		r.Clock = r.Virtual
	}
	x, err := sim.New(sc, sim.Options{Clock: r.Clock})
	if err != nil {
		t.Fatal(err)
	}
	r.Exchange = x
	if !o.HTTP {
		return r
	}
	opts := o.Server
	opts.Backend = server.SimBackend(x)
	if opts.Clock == nil {
		opts.Clock = r.Clock
	}
	r.Server = server.New(opts)
	var h http.Handler = r.Server
	if o.Front != nil {
		h = o.Front(r, r.Server)
	}
	srv := httptest.NewServer(h) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Account returns the in-process account of apiKey; an unknown key fails
// the test.
func (r *Rig) Account(t testing.TB, apiKey string) *sim.Account {
	t.Helper()
	a, ok := r.Exchange.Account(apiKey)
	if !ok {
		t.Fatalf("the scenario has no account %q", apiKey)
	}
	return a
}

// Credentials returns the API key, secret and passphrase of apiKey as the
// scenario defines them; an unknown key fails the test.
func (r *Rig) Credentials(t testing.TB, apiKey string) exchange.Credentials {
	t.Helper()
	auth, ok := r.Exchange.Auth(apiKey)
	if !ok {
		t.Fatalf("the scenario has no key %q", apiKey)
	}
	return exchange.Credentials{APIKey: apiKey, Secret: auth.Secret, Passphrase: auth.Passphrase}
}

// Client returns an exchange.Client of apiKey for the served simulator. It
// fills o's BaseURL and Credentials, and its Clock when nil; the rest of o
// (HTTP client, retries) is the test's choice. It fails the test without
// RigOptions.HTTP.
func (r *Rig) Client(t testing.TB, apiKey string, o exchange.ClientOptions) *exchange.Client {
	t.Helper()
	if r.URL == "" {
		t.Fatal("simtest: Client needs RigOptions.HTTP")
	}
	o.BaseURL, o.Credentials = r.URL, r.Credentials(t, apiKey)
	if o.Clock == nil {
		o.Clock = r.Clock
	}
	c, err := exchange.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
