package backtest

import (
	"context"
	"encoding/json"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// goldenReport reads a golden report.json back.
func goldenReport(t *testing.T, name string) *Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "report-"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// pageWant is what report.html of a golden report must show, counted by
// hand from the golden report.json.
type pageWant struct {
	charted        []string // symbols with a price chart
	fillMarkers    int      // one per filled order on a charted symbol
	firingMarkers  int      // firings that filled nothing, per chart they touch
	equityCharts   int      // used accounts
	trades, firing int      // rows
}

var pageWants = map[string]pageWant{
	// BTCUSDT: 13 filled orders; TSLAUSDT: 1. eth-below-minimum failed
	// before building a request, so it names no symbol and shows on both
	// charts. ETHUSDT has no order, fill or named firing: not charted. Only
	// the USDT account traded. Trades: 6 closed BTC, 1 open BTC, 1 open TSLA.
	"small": {charted: []string{"BTCUSDT", "TSLAUSDT"}, fillMarkers: 14, firingMarkers: 2, equityCharts: 1, trades: 8, firing: 15},
	// Every firing placed a TSLA order that filled: 6 fill markers, no
	// firing marker; 5 closed trades of the one entry plus its open rest.
	"examples": {charted: []string{"TSLAUSDT"}, fillMarkers: 1, firingMarkers: 0, equityCharts: 1, trades: 1, firing: 1},
}

func TestHTMLPage(t *testing.T) {
	for name, want := range pageWants {
		t.Run(name, func(t *testing.T) {
			r := goldenReport(t, name)
			page := string(r.HTML())
			if n := strings.Count(page, chartLibrary); n != 1 {
				t.Fatalf("the chart library is inlined %d times, want once", n)
			}
			own := strings.Replace(page, chartLibrary, "", 1)
			// Self-contained: nothing is loaded from anywhere.
			for _, bad := range []string{"<script src", "<link", "src=\"http", "href=\"http", "@import", "url("} {
				if strings.Contains(own, bad) {
					t.Errorf("report.html contains %q: it must work offline", bad)
				}
			}
			data := r.chartData()
			var charted []string
			fills, firings := 0, 0
			for _, s := range data.Symbols {
				charted = append(charted, s.Symbol)
				for _, m := range s.Markers {
					switch m.Kind {
					case "fill":
						fills++
						if m.Price == nil || m.Position != "atPriceMiddle" {
							t.Errorf("%s: fill marker %q is not at its price", s.Symbol, m.Text)
						}
					case "firing":
						firings++
					}
				}
				if len(s.Prices) != len(r.Equity) || len(s.Bands) == 0 {
					t.Errorf("%s: %d prices of %d samples, %d session bars", s.Symbol, len(s.Prices), len(r.Equity), len(s.Bands))
				}
			}
			if strings.Join(charted, ",") != strings.Join(want.charted, ",") || fills != want.fillMarkers || firings != want.firingMarkers {
				t.Errorf("charts %v with %d fill and %d firing markers, want %v, %d, %d", charted, fills, firings, want.charted, want.fillMarkers, want.firingMarkers)
			}
			if len(data.Equity) != want.equityCharts {
				t.Errorf("%d equity charts, want %d", len(data.Equity), want.equityCharts)
			}
			for _, c := range []struct {
				what string
				re   string
				want int
			}{
				{"price chart boxes", `<div class="chart price"`, len(want.charted)},
				{"equity chart boxes", `<div class="chart equity"`, want.equityCharts},
				{"trade rows", `<tr class="trade">`, want.trades},
				{"firing rows", `<tr class="firing">`, want.firing},
				{"used account rows", `<tr class="account">`, want.equityCharts},
				{"New York times", `Mon Mar 9 \d\d:\d\d:\d\d EDT`, 1 + want.firing},
			} {
				if got := len(regexp.MustCompile(c.re).FindAllStringIndex(own, -1)); got < c.want || (c.what != "New York times" && got != c.want) {
					t.Errorf("%s: %d, want %d", c.what, got, c.want)
				}
			}
			// Requests only inside the folded details of the firings table.
			table := own[strings.Index(own, `<table class="firings">`):]
			table = table[:strings.Index(table, "</table>")]
			folded := regexp.MustCompile(`(?s)<details>.*?</details>`).ReplaceAllString(table, "")
			if strings.Contains(folded, "&#34;") || !strings.Contains(table, "&#34;symbol&#34;") {
				t.Errorf("the firings table shows raw request JSON outside <details>, or none inside")
			}
		})
	}
}

// TestHTMLEscapes puts markup into every name a page shows: it must stay
// text, also inside the chart data.
func TestHTMLEscapes(t *testing.T) {
	bad := `</script><script>alert(1)</script>`
	r := goldenReport(t, "small")
	r.Source = bad
	for i := range r.Firings {
		r.Firings[i].Rule = bad
	}
	for i := range r.Trades {
		r.Trades[i].EntryRule = bad
	}
	page := strings.Replace(string(r.HTML()), chartLibrary, "", 1)
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a rule name or source ends a script element of the page")
	}
	if strings.Contains(chartLibrary, "</script") {
		t.Error("the vendored chart library contains </script: it cannot be inlined as is")
	}
}

func TestHTMLShowsLogMessages(t *testing.T) {
	r := goldenReport(t, "examples")
	r.Firings[0].Actions = append(r.Firings[0].Actions, Action{Kind: "log", Outcome: "ok", Note: "TSLA stop restored at 401.2"})
	if page := string(r.HTML()); !strings.Contains(page, `<div class="note">TSLA stop restored at 401.2</div>`) {
		t.Error("the log message of a firing is missing from the firings table")
	}
}

// chromiumPath is where Debian's chromium package installs the browser.
const chromiumPath = "/usr/bin/chromium"

// chartStatus is what the page script writes into #chart-status.
type chartStatus struct {
	Library       string   `json:"library"`
	Charts        int      `json:"charts"`
	Series        int      `json:"series"`
	Markers       int      `json:"markers"`
	FillMarkers   int      `json:"fillMarkers"`
	FiringMarkers int      `json:"firingMarkers"`
	Drawn         int      `json:"drawn"`    // markers drawn after merging
	Labelled      int      `json:"labelled"` // drawn with their rule's text
	Ticks         [][2]any `json:"ticks"`    // time-axis labels: [unix seconds, text]
	Errors        []string `json:"errors"`
}

// TestHTMLInChromium opens report.html in headless Chromium from a file,
// with no network: the inlined library must load and draw every chart,
// series and marker without a script error, and a screenshot must show
// the markers' and the price line's colours (the canvas is painted).
func TestHTMLInChromium(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s is missing: install Debian's chromium package (apt-get install -y chromium) to run the browser check", chromiumPath)
	}
	r := goldenReport(t, "small")
	want := pageWants["small"]
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.Join(dir, HTMLFile)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1300,1500", "--virtual-time-budget=5000"}
	st := chromiumStatus(ctx, t, base, url)
	// Two price charts of two series (session bands, price) and one
	// equity chart of two (return, drawdown).
	if st.Library != chartLibraryVersion || len(st.Errors) > 0 || st.Charts != len(want.charted)+want.equityCharts || st.Series != 6 ||
		st.Markers != want.fillMarkers+want.firingMarkers || st.FillMarkers != want.fillMarkers || st.FiringMarkers != want.firingMarkers ||
		st.Drawn == 0 || st.Drawn > st.Markers {
		t.Errorf("Chromium drew %+v; want library %s, no error, %d charts, 6 series, %d fill and %d firing markers",
			st, chartLibraryVersion, len(want.charted)+want.equityCharts, want.fillMarkers, want.firingMarkers)
	}
	shot := filepath.Join(dir, "shot.png")
	if out, err := exec.CommandContext(ctx, chromiumPath, append(base, "--screenshot="+shot, "--hide-scrollbars", url)...).CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[string][3]int{"firing marker": {0xe0, 0x7b, 0x00}, "buy marker": {0x1d, 0x8a, 0x3a}, "sell marker": {0xc6, 0x28, 0x28},
		"price line": {0x1f, 0x5f, 0xbf}}
	count := map[string]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r16, g16, b16, _ := img.At(x, y).RGBA()
			for name, c := range colours {
				if near(int(r16>>8), c[0]) && near(int(g16>>8), c[1]) && near(int(b16>>8), c[2]) {
					count[name]++
				}
			}
		}
	}
	for name := range colours {
		if count[name] < 30 {
			t.Errorf("screenshot: %d pixels of the %s colour, want the %s drawn (at least 30)", count[name], name, name)
		}
	}
}

// chromiumStatus opens url in headless Chromium with the flags base and
// returns what the page script wrote into #chart-status.
func chromiumStatus(ctx context.Context, t *testing.T, base []string, url string) chartStatus {
	t.Helper()
	dom, err := exec.CommandContext(ctx, chromiumPath, append(base, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	m := regexp.MustCompile(`<pre id="chart-status"[^>]*>([^<]*)</pre>`).FindSubmatch(dom)
	if m == nil {
		t.Fatal("the DOM built by Chromium has no #chart-status")
	}
	var st chartStatus
	// After a failure the page puts a sentence before the JSON.
	text := html.UnescapeString(string(m[1]))
	if err := json.Unmarshal([]byte(text[max(strings.Index(text, `{"library"`), 0):]), &st); err != nil {
		t.Fatalf("#chart-status %q: %v", m[1], err)
	}
	return st
}

func near(a, b int) bool { return a-b <= 24 && b-a <= 24 }

// TestHTMLEmptyReport: a run that did nothing gives a page without charts
// (no empty ones) that says so.
func TestHTMLEmptyReport(t *testing.T) {
	r := &Report{Source: "empty", Summary: Summary{Accounts: []AccountSummary{
		{ProductType: "USDT-FUTURES", MarginCoin: "USDT", EquityStart: "100", EquityEnd: "100", MaxDrawdown: "0"}}}}
	page := string(r.HTML())
	for _, want := range []string{"<p>No trades.</p>", "Accounts left out (no fills, equity unchanged): USDT-FUTURES USDT.", `"symbols":[]`, `"equity":[]`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `class="chart`) {
		t.Error("a run that did nothing draws a chart")
	}
}
