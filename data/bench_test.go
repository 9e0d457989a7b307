package data_test

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
	"github.com/tickrules/tickrules/sim/simtest"
)

// yearOfMinutes is a year of one-minute candles with prices and volumes
// written as the venue writes them: 525,600 rows.
func yearOfMinutes() []data.Candle {
	start := time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]data.Candle, 0, 525_600)
	cents := int64(43125)
	for i := range 525_600 {
		cents += int64(i%7) - 3
		p := func(d int64) exchange.Num {
			v := cents + d
			return exchange.Num(strconv.FormatInt(v/100, 10) + "." + fmt.Sprintf("%02d", v%100))
		}
		vol := strconv.Itoa(i % 97)
		rows = append(rows, data.Candle{Time: start.Add(time.Duration(i) * time.Minute), Open: p(0), High: p(9), Low: p(-7), Close: p(2),
			BaseVolume: exchange.Num(vol + ".4"), QuoteVolume: exchange.Num(vol + "1250.92")})
	}
	return rows
}

// storeYear writes rows as the store does: one CSV file per month, and
// the same months as gob files (the measured alternative).
func storeYear(b *testing.B, dir string, rows []data.Candle) (csvBytes, gobBytes int64) {
	b.Helper()
	s := trade("TSLAUSDT", exchange.Gran1m)
	for lo := 0; lo < len(rows); {
		mo := data.MonthOf(rows[lo].Time)
		hi := lo
		for hi < len(rows) && data.MonthOf(rows[hi].Time).Equal(mo) {
			hi++
		}
		content := data.FormatCandles(rows[lo:hi])
		if err := data.WriteAtomic(s.MonthFile(dir, mo), content); err != nil {
			b.Fatal(err)
		}
		csvBytes += int64(len(content))
		var g bytes.Buffer
		if err := gob.NewEncoder(&g).Encode(rows[lo:hi]); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "gob", mo.Format("2006-01")+".gob"), g.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		gobBytes += int64(g.Len())
		lo = hi
	}
	m := data.Manifest{Covered: data.Span{rows[0].Time, rows[len(rows)-1].Time.Add(time.Minute)}}
	if err := data.WriteManifest(dir, s, m); err != nil {
		b.Fatal(err)
	}
	return csvBytes, gobBytes
}

// BenchmarkLoadYear loads a year of one-minute candles of one symbol
// (525,600 rows) from the store's CSV files, beside the same rows in gob,
// the compact binary alternative: the figures chose the format (BENCHMARKS.md).
func BenchmarkLoadYear(b *testing.B) {
	rows := yearOfMinutes()
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "gob"), 0o755); err != nil {
		b.Fatal(err)
	}
	csvBytes, gobBytes := storeYear(b, dir, rows)
	b.Run("csv", func(b *testing.B) {
		for b.Loop() {
			l, err := data.Load(dir, trade("TSLAUSDT", exchange.Gran1m), time.Time{}, time.Time{})
			if err != nil || len(l.Candles) != len(rows) {
				b.Fatalf("%d rows, %v", len(l.Candles), err)
			}
		}
		b.ReportMetric(float64(csvBytes)/1e6, "MB-on-disk")
	})
	b.Run("gob", func(b *testing.B) {
		files, err := filepath.Glob(filepath.Join(dir, "gob", "*.gob"))
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			var all []data.Candle
			for _, f := range files {
				content, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				var month []data.Candle
				if err := gob.NewDecoder(bytes.NewReader(content)).Decode(&month); err != nil {
					b.Fatal(err)
				}
				all = append(all, month...)
			}
			if len(all) != len(rows) {
				b.Fatalf("%d rows", len(all))
			}
		}
		b.ReportMetric(float64(gobBytes)/1e6, "MB-on-disk")
	})
}

// BenchmarkDownloadRateLimitFloor downloads 20,000 minutes of one symbol
// (100 history calls for each of trade, mark and index) from the simulator
// served on loopback with its rate limits on, through the client and its
// rate limiter on the real clock, and reports the time against the floor
// the limits allow: each history query 20 a second after a burst of 20.
// Run it once: go test ./data -run X -bench DownloadRateLimitFloor -benchtime 1x.
func BenchmarkDownloadRateLimitFloor(b *testing.B) {
	const minutes = 20_000
	start := listing
	now := start.Add(minutes*time.Minute + time.Hour)
	x, err := sim.New(simtest.Scenario(), sim.Options{Clock: clock.NewVirtual(now)})
	if err != nil {
		b.Fatal(err)
	}
	served := server.New(server.Options{Backend: server.SimBackend(x), Clock: clock.Real{}})
	var refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		served.ServeHTTP(rec, r)
		if rec.status == http.StatusTooManyRequests {
			refused.Add(1)
		}
	}))
	defer srv.Close()
	for b.Loop() {
		c, err := exchange.NewClient(exchange.ClientOptions{BaseURL: srv.URL, Limiter: exchange.NewLimiter(exchange.LimiterOptions{Headroom: data.DownloadHeadroom})})
		if err != nil {
			b.Fatal(err)
		}
		d := &data.Downloader{Venue: c, Dir: b.TempDir(), Now: func() time.Time { return now }}
		began := time.Now()
		if err := d.Download(context.Background(), data.Request{Product: exchange.USDTFutures, Symbols: []string{"TSLAUSDT"}, Interval: exchange.Gran1m,
			From: start, To: start.Add(minutes * time.Minute)}); err != nil {
			b.Fatal(err)
		}
		took := time.Since(began)
		calls := minutes / exchange.MaxHistoryCandles
		floor := 3 * time.Duration(calls-20) * (time.Second / 20)
		b.ReportMetric(took.Seconds(), "s-download")
		b.ReportMetric(floor.Seconds(), "s-floor")
		b.ReportMetric(took.Seconds()/floor.Seconds(), "x-floor")
		b.ReportMetric(float64(refused.Load()), "429s")
	}
}

// statusRecorder notes the status a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}
