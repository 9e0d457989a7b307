package backtest

import (
	"context"
	"encoding/json"
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

// wantMarkers counts the markers the price charts of r must show.
func wantMarkers(r *Report) (firings, fills int) {
	for _, ps := range r.Prices {
		for _, f := range r.Firings {
			if firingTouches(f, ps.Symbol) {
				firings++
			}
		}
		for _, f := range r.Fills {
			if f.Symbol == ps.Symbol {
				fills++
			}
		}
	}
	return firings, fills
}

func TestHTMLDrawsChartsAndMarkers(t *testing.T) {
	for _, name := range []string{"small", "examples"} {
		t.Run(name, func(t *testing.T) {
			r := goldenReport(t, name)
			page := string(r.HTML())
			wf, wl := wantMarkers(r)
			if wf == 0 || wl == 0 {
				t.Fatalf("the golden report %s has no firing or fill on a charted symbol (%d, %d): the test would prove nothing", name, wf, wl)
			}
			checks := []struct {
				what string
				re   string
				want int
			}{
				{"price charts", `<svg class="chart price"`, len(r.Prices)},
				{"equity charts", `<svg class="chart equity"`, len(r.Summary.Accounts)},
				{"session bands", `<rect class="session `, len(r.Sessions) * len(r.Prices)},
				{"firing markers", `class="marker firing"`, wf},
				{"fill markers", `class="marker fill"`, wl},
				{"firing rows", `<tr class="firing">`, len(r.Firings)},
				{"price lines", `<polyline class="line"`, len(r.Prices) + len(r.Summary.Accounts)},
			}
			for _, c := range checks {
				if got := len(regexp.MustCompile(c.re).FindAllStringIndex(page, -1)); got != c.want {
					t.Errorf("%s: %d, want %d", c.what, got, c.want)
				}
			}
			// Self-contained: nothing is loaded from anywhere.
			for _, bad := range []string{"<script src", "<link", "src=\"http", "href=\"http", "@import", "url("} {
				if strings.Contains(page, bad) {
					t.Errorf("report.html contains %q: it must work offline", bad)
				}
			}
		})
	}
}

// chromiumPath is where Debian's chromium package installs the browser.
const chromiumPath = "/usr/bin/chromium"

// TestHTMLInChromium opens report.html in headless Chromium: the DOM it
// builds must hold the charts and markers, and a screenshot must show the
// markers' colours (the page renders, not just parses).
func TestHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s is missing: install Debian's chromium package (apt-get install -y chromium) to run the browser check", chromiumPath)
	}
	r := goldenReport(t, "small")
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.Join(dir, HTMLFile)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1100,1300"}
	dom, err := exec.CommandContext(ctx, chromiumPath, append(base, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	wf, wl := wantMarkers(r)
	for _, c := range []struct {
		what, re string
		want     int
	}{
		{"price charts", `<svg class="chart price"`, len(r.Prices)},
		{"firing markers", `<path class="marker firing"`, wf},
		{"fill markers", `<circle class="marker fill"`, wl},
	} {
		if got := len(regexp.MustCompile(c.re).FindAllIndex(dom, -1)); got != c.want {
			t.Errorf("DOM built by Chromium: %s %d, want %d", c.what, got, c.want)
		}
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
	// Count pixels of the firing marker's orange (#e07b00), the buy fill's
	// green (#1d8a3a) and the price line's blue (#1f5fbf).
	colours := map[string][3]int{"firing marker": {0xe0, 0x7b, 0x00}, "fill marker": {0x1d, 0x8a, 0x3a}, "price line": {0x1f, 0x5f, 0xbf}}
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
		if count[name] < 10 {
			t.Errorf("screenshot: %d pixels of the %s colour, want the %s drawn (at least 10)", count[name], name, name)
		}
	}
}

func near(a, b int) bool { return a-b <= 24 && b-a <= 24 }
