package backtest

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestProgress drives the progress writer with a fake wall clock that
// moves 100ms each time it is read: nothing in the first second, then a
// line at most every 500ms, and a last line.
func TestProgress(t *testing.T) {
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	read := func() time.Time { wall = wall.Add(100 * time.Millisecond); return wall }
	from := time.Date(2026, 3, 9, 13, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := &progress{w: &out, wall: read, from: from, to: from.Add(time.Hour)}
	p.start()
	const ticks = 40 * 1024 // the wall clock is read every 1024 ticks: 40 reads, 4s
	for i := 1; i <= ticks; i++ {
		p.report(from.Add(time.Duration(i) * time.Hour / ticks))
	}
	p.done()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// Reads at 0.1s steps from 0.1s; the first line after 1s at 1.1s (25%),
	// then every 0.5s to 4.1s: 7 lines, plus the last.
	if len(lines) != 8 {
		t.Fatalf("%d lines, want 8:\n%s", len(lines), out.String())
	}
	if !strings.HasPrefix(lines[0], "backtest:  25.0% at 2026-03-09T13:15:00Z, about 3s left") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.HasPrefix(lines[7], "backtest: 100.0% at 2026-03-09T14:00:00Z, done in") {
		t.Errorf("last line %q", lines[7])
	}

	out.Reset()
	quiet := &progress{w: &out, wall: read, from: from, to: from.Add(time.Hour)}
	quiet.start()
	quiet.report(from.Add(time.Minute))
	quiet.done()
	if out.Len() != 0 {
		t.Errorf("a short run printed %q", out.String())
	}
}

func TestTraceValuesAreJSON(t *testing.T) {
	in := map[string]any{"a": math.NaN(), "b": math.Inf(-1), "c": 1.5, "d": "x", "e": []any{math.Inf(1)}, "f": float32(2)}
	b, err := json.Marshal(traceValues(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"NaN","b":"-Inf","c":1.5,"d":"x","e":["+Inf"],"f":2}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
