package main

import (
	"context"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"
)

func TestCheckNotifyRoutes(t *testing.T) {
	const file = `
rules:
  - name: alarm
    when: market.is_open
    actions:
      - notify: { message: "security check", to: [security] }
      - notify: { message: "for everyone" }
`
	rs, errs := rules.LoadBytes(context.Background(), "alarm.yaml", []byte(file), rules.LoadOptions{Actions: actions.Defs()})
	if errs.HasErrors() {
		t.Fatal(errs)
	}
	tests := []struct {
		name    string
		targets []string
		want    string // "" when it passes
	}{
		{"named target exists", []string{"trader", "security"}, ""},
		{"named target missing", []string{"trader", "ops"}, `alarm.yaml:6:9: rule alarm sends to "security", which is not a target (the notify file's targets are trader, ops)`},
		{"no notify file", nil, "engine run has no --notify file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkNotifyRoutes(rs, tt.targets)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
