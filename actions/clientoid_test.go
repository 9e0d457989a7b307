package actions

import (
	"regexp"
	"testing"
	"time"
)

var clientOIDPattern = regexp.MustCompile(`^[0-9a-zA-Z\-+_#]{1,49}$`)

func TestClientOID(t *testing.T) {
	at := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	f := Firing{Rule: "flatten-before-us-close", At: at}
	a := ClientOID(f, 0)
	if a != ClientOID(f, 0) {
		t.Fatal("ClientOID is not deterministic")
	}
	if want := "tr-"; a[:3] != want {
		t.Errorf("ClientOID = %q, want prefix %q", a, want)
	}
	seen := map[string]string{}
	cases := []struct {
		name string
		f    Firing
		leg  int
	}{
		{"base", f, 0},
		{"next leg", f, 1},
		{"leg 49", f, 49},
		{"next tick", Firing{Rule: f.Rule, At: at.Add(time.Second)}, 0},
		{"other rule", Firing{Rule: "buy-the-open-dip", At: at}, 0},
		{"for_each instance", Firing{Rule: "spread-guard[TSLAUSDT]", At: at}, 0},
		{"unicode and spaces in name", Firing{Rule: "stop loss ünïcode / 5%", At: at}, 0},
		{"very long name", Firing{Rule: string(make([]byte, 500)), At: at}, 7},
		{"far future", Firing{Rule: "x", At: time.Date(2999, 12, 31, 23, 59, 59, 0, time.UTC)}, 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := ClientOID(c.f, c.leg)
			if !clientOIDPattern.MatchString(id) {
				t.Errorf("ClientOID = %q (len %d) breaks the exchange's charset or length", id, len(id))
			}
			if prev, dup := seen[id]; dup {
				t.Errorf("ClientOID %q for %s collides with %s", id, c.name, prev)
			}
			seen[id] = c.name
		})
	}
}
