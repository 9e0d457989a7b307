package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/actions"
)

func TestEquityPeaksSaveAndLoad(t *testing.T) {
	s, err := NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.LoadEquityPeaks(); err != nil || len(p) != 0 {
		t.Fatalf("no file: %v, %v; want none", p, err)
	}
	hour := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	want := actions.EquityPeaks{"USDT": {{Hour: hour, High: decimal.RequireFromString("10250.5")}, {Hour: hour.Add(time.Hour), High: decimal.RequireFromString("10100")}}}
	if err := s.SaveEquityPeaks(want); err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadEquityPeaks()
	if err != nil {
		t.Fatal(err)
	}
	if len(got["USDT"]) != 2 || !got["USDT"][0].Hour.Equal(hour) || !got["USDT"][0].High.Equal(want["USDT"][0].High) || !got["USDT"][1].High.Equal(want["USDT"][1].High) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}

func TestDecodeEquityPeaks(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"good", `{"version":1,"coins":{"USDT":[{"hour":"2026-03-09T14:00:00Z","high":"10000"},{"hour":"2026-03-09T15:00:00Z","high":"9000"}]}}`, ""},
		{"other version", `{"version":2,"coins":{}}`, "not a version 1"},
		{"no coins", `{"version":1}`, `"coins" is missing`},
		{"unknown field", `{"version":1,"coins":{},"peak":1}`, "unknown field"},
		{"negative equity", `{"version":1,"coins":{"USDT":[{"hour":"2026-03-09T14:00:00Z","high":"-1"}]}}`, "below zero"},
		{"hours out of order", `{"version":1,"coins":{"USDT":[{"hour":"2026-03-09T15:00:00Z","high":"1"},{"hour":"2026-03-09T14:00:00Z","high":"1"}]}}`, "not after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeEquityPeaks([]byte(tt.file))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (!errors.Is(err, ErrBadStateFile) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want ErrBadStateFile with %q", err, tt.want)
			}
		})
	}
}

// FuzzDecodeEquityPeaks: no input panics, and what decodes saves and
// decodes to the same.
func FuzzDecodeEquityPeaks(f *testing.F) {
	f.Add([]byte(`{"version":1,"coins":{"USDT":[{"hour":"2026-03-09T14:00:00Z","high":"10000"}]}}`))
	f.Add([]byte(`{"version":1,"coins":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeEquityPeaks(b)
		if err != nil {
			return
		}
		s, err := NewStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveEquityPeaks(p); err != nil {
			t.Fatal(err)
		}
		again, err := s.LoadEquityPeaks()
		if err != nil || len(again) != len(p) {
			t.Fatalf("saved %v, read back %v, %v", p, again, err)
		}
	})
}
