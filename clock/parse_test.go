package clock

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name, in string
		want     time.Time
		errHas   string
	}{
		{"rfc3339 utc", "2026-03-09T13:30:00Z", utc("2026-03-09T13:30:00Z"), ""},
		{"rfc3339 offset", "2026-03-09T09:30:00-04:00", utc("2026-03-09T13:30:00Z"), ""},
		{"new york minute, daylight time", "2026-03-09 09:30", utc("2026-03-09T13:30:00Z"), ""},
		{"new york second", "2026-03-09 09:30:15", utc("2026-03-09T13:30:15Z"), ""},
		{"new york standard time", "2026-01-05 09:30", utc("2026-01-05T14:30:00Z"), ""},
		{"date is midnight in new york", "2026-03-09", utc("2026-03-09T04:00:00Z"), ""},
		{"T separator", "2026-03-09T09:30", utc("2026-03-09T13:30:00Z"), ""},
		{"spaces around", "  2026-03-09 09:30  ", utc("2026-03-09T13:30:00Z"), ""},
		{"just before the spring gap", "2026-03-08 01:59:59", utc("2026-03-08T06:59:59Z"), ""},
		{"spring gap does not exist", "2026-03-08 02:30", time.Time{}, "does not exist in New York"},
		{"just after the spring gap", "2026-03-08 03:00", utc("2026-03-08T07:00:00Z"), ""},
		{"fall overlap takes the first, daylight", "2026-11-01 01:30", utc("2026-11-01T05:30:00Z"), ""},
		{"after the fall overlap", "2026-11-01 02:00", utc("2026-11-01T07:00:00Z"), ""},
		{"garbage", "tomorrow", time.Time{}, "2026-03-09 09:30"},
		{"time alone", "09:30", time.Time{}, "not a time"},
		{"bad month", "2026-13-01 09:30", time.Time{}, "not a time"},
		{"empty", "", time.Time{}, "not a time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTime(tc.in)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) || !errors.Is(err, ErrBadTime) {
					t.Fatalf("ParseTime(%q) = %v, %v; want an ErrBadTime containing %q", tc.in, got, err, tc.errHas)
				}
				return
			}
			if err != nil || !got.Equal(tc.want) {
				t.Fatalf("ParseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-03-09 09:30", "2026-03-08 02:30", "2026-11-01 01:30:00", "2026-03-09", "2026-03-09T13:30:00Z", "x"} {
		f.Add(s)
	}
	ny := NewYork()
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTime(s)
		if err != nil {
			if !errors.Is(err, ErrBadTime) {
				t.Fatalf("ParseTime(%q): error %v does not wrap ErrBadTime", s, err)
			}
			return
		}
		if got.IsZero() {
			t.Fatalf("ParseTime(%q) accepted a zero time", s)
		}
		// A New York local time reads back as itself.
		if _, perr := time.Parse(time.RFC3339, strings.TrimSpace(s)); perr != nil {
			for _, l := range newYorkLayouts {
				if w, werr := time.Parse(l, strings.TrimSpace(s)); werr == nil {
					if back := got.In(ny).Format(l); back != w.Format(l) {
						t.Fatalf("ParseTime(%q) = %v, reads back as %q", s, got, back)
					}
					break
				}
			}
		}
	})
}
