package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// demoStep is one request of the demo transcript; every request is signed
// with the key named (empty: unsigned).
type demoStep struct {
	key    string
	method string
	target string
	body   string
}

var demoCreds = map[string][2]string{ // key -> secret, passphrase
	"demo-key":       {"demo-secret", "demo-passphrase"},
	"demo-hedge-key": {"demo-hedge-secret", "demo-hedge-passphrase"},
}

// demoScript touches every operation family: public market data, orders in
// both position modes, queries, stock data, strategy orders, discount tiers
// and spot records.
var demoScript = []demoStep{
	{"", "GET", "/api/v3/stock/market/stock-info?symbol=TSLAUSDT", ""},
	{"", "GET", "/api/v3/stock/market/states", ""},
	{"", "GET", "/api/v3/stock/market/calendar", ""},
	{"", "GET", "/api/v2/mix/market/contracts?productType=USDT-FUTURES&symbol=BTCUSDT", ""},
	{"", "GET", "/api/v2/mix/market/ticker?productType=USDT-FUTURES&symbol=BTCUSDT", ""},
	{"demo-key", "POST", pathPlace, `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"limit","price":"20000","clientOid":"g-1"}`},
	{"demo-key", "GET", pathDetail + "?clientOid=g-1&productType=USDT-FUTURES&symbol=BTCUSDT", ""},
	{"demo-key", "GET", "/api/v2/mix/order/orders-pending?productType=USDT-FUTURES", ""},
	{"demo-key", "POST", pathPlace, `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"market","clientOid":"g-2"}`},
	{"demo-key", "GET", "/api/v2/mix/order/fills?productType=USDT-FUTURES&symbol=BTCUSDT", ""},
	{"demo-key", "GET", "/api/v2/mix/position/all-position?productType=USDT-FUTURES", ""},
	{"demo-key", "GET", "/api/v2/mix/account/accounts?productType=USDT-FUTURES", ""},
	{"demo-key", "POST", pathPlace, `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","tradeSide":"open","orderType":"market"}`},
	{"demo-hedge-key", "POST", pathPlace, `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"sell","tradeSide":"open","orderType":"market","clientOid":"h-1"}`},
	{"demo-key", "GET", "/api/v3/account/stock-orderbook?symbol=TSLAUSDT", ""},
	{"demo-key", "GET", "/api/v3/account/stock-fills?limit=3&symbol=TSLAUSDT", ""},
	{"demo-key", "GET", "/api/v3/trade/unfilled-strategy-orders?category=spot&type=oco", ""},
	{"demo-key", "GET", "/api/v3/account/eligible-discount-rate?coin=BTC", ""},
	{"demo-key", "GET", "/api/v2/tax/spot-record?coin=BTC&endTime=1771200000000&limit=3&startTime=1770422400000", ""},
	{"demo-key", "POST", pathCancel, `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","clientOid":"g-1"}`},
	{"demo-key", "POST", pathCancel, `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","clientOid":"g-1"}`},
	{"demo-key", "POST", "/api/v2/mix/order/close-positions", `{"productType":"USDT-FUTURES","symbol":"BTCUSDT"}`},
}

// runDemoScript plays demoScript against a fresh demo simulator on a virtual
// clock that advances one second per request, and returns the responses.
func runDemoScript(t *testing.T) []response {
	t.Helper()
	sc := sim.Demo()
	clk := clock.NewVirtual(sc.Clock.Start)
	x, err := sim.New(sc, sim.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, clk, SimBackend(x), nil)
	var out []response
	for _, s := range demoScript {
		c := call{method: s.method, target: s.target, body: s.body, unsigned: s.key == ""}
		if s.key != "" {
			c.key, c.secret, c.passphrase = s.key, demoCreds[s.key][0], demoCreds[s.key][1]
		}
		out = append(out, h.do(c))
		clk.Advance(time.Second)
	}
	return out
}

// TestDemoTranscript plays the same requests twice at the same virtual times
// and expects byte-identical responses (issue item 9), then compares them
// with testdata/demo_transcript.golden (go test -update rewrites it).
func TestDemoTranscript(t *testing.T) {
	first, second := runDemoScript(t), runDemoScript(t)
	var transcript bytes.Buffer
	for i, s := range demoScript {
		if !bytes.Equal(first[i].raw, second[i].raw) {
			t.Errorf("%s %s: responses differ between runs:\n%s\n%s", s.method, s.target, first[i].raw, second[i].raw)
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, first[i].raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		key := s.key
		if key == "" {
			key = "public"
		}
		fmt.Fprintf(&transcript, "### %s %s (%s)\n", s.method, s.target, key)
		if s.body != "" {
			fmt.Fprintf(&transcript, "%s\n", s.body)
		}
		fmt.Fprintf(&transcript, "--> HTTP %d\n%s\n\n", first[i].status, pretty.Bytes())
	}
	golden := filepath.Join("testdata", "demo_transcript.golden")
	if *update {
		if err := os.WriteFile(golden, transcript.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, transcript.Bytes()) {
		t.Errorf("transcript differs from %s (go test -update rewrites it after review):\n%s", golden, firstDiff(string(want), transcript.String()))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// TestDemoShapes checks the JSON field names of the demo's records against
// the spec's tables.
func TestDemoShapes(t *testing.T) {
	rs := runDemoScript(t)
	byTarget := func(prefix string) response {
		for i, s := range demoScript {
			if strings.HasPrefix(s.target, prefix) {
				return rs[i]
			}
		}
		t.Fatalf("no step %s", prefix)
		return response{}
	}
	firstItem := func(r response, list string) json.RawMessage {
		t.Helper()
		r.expect(t, http.StatusOK, exchange.CodeSuccess)
		data := r.env.Data
		if list != "" {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			data = m[list]
		}
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil || len(items) == 0 {
			t.Fatalf("%s: no items in %s (%v)", list, r.raw, err)
		}
		return items[0]
	}
	expectFields(t, "fill", firstItem(byTarget("/api/v2/mix/order/fills"), "fillList"), strings.Fields(
		`tradeId symbol orderId price baseVolume quoteVolume feeDetail side profit enterPointSource tradeSide posMode tradeScope cTime`))
	book := byTarget("/api/v3/account/stock-orderbook")
	book.expect(t, http.StatusOK, exchange.CodeSuccess)
	expectFields(t, "stock order book", book.env.Data, strings.Fields(`symbol a b ts`))
	expectFields(t, "stock fill", firstItem(byTarget("/api/v3/account/stock-fills"), ""), strings.Fields(`execId price size side ts`))
	expectFields(t, "market state", firstItem(byTarget("/api/v3/stock/market/states"), ""), strings.Fields(`market daylightType stateList`))
	cal := byTarget("/api/v3/stock/market/calendar")
	cal.expect(t, http.StatusOK, exchange.CodeSuccess)
	expectFields(t, "calendar", cal.env.Data, strings.Fields(`timeZone specificConfig regularConfig`))
	expectFields(t, "strategy order", firstItem(byTarget("/api/v3/trade/unfilled-strategy-orders"), ""), strings.Fields(
		`orderId clientOid category symbol qty posSide status ocoParams createdTime updatedTime`))
	expectFields(t, "discount coin", firstItem(byTarget("/api/v3/account/eligible-discount-rate"), ""), strings.Fields(`coin list`))
	expectFields(t, "spot record", firstItem(byTarget("/api/v2/tax/spot-record"), ""), strings.Fields(
		`id coin spotTaxType amount fee balance bizOrderId ts`))
}

// BenchmarkPlaceCancelHTTPSim is the place+cancel round trip over HTTP on
// loopback against the demo simulator.
func BenchmarkPlaceCancelHTTPSim(b *testing.B) {
	sc := sim.Demo()
	clk := clock.NewVirtual(sc.Clock.Start)
	x, err := sim.New(sc, sim.Options{Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	place := `{"symbol":"BTCUSDT","productType":"USDT-FUTURES","marginMode":"crossed","marginCoin":"USDT","size":"0.01","side":"buy","orderType":"limit","price":"20000","clientOid":%q}`
	benchRoundTrip(b, SimBackend(x), "demo-key", "demo-secret", "demo-passphrase", place)
}
