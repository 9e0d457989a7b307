package actions

import (
	"testing"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// TestEveryKindIsDeclaredOnce keeps the two halves of an action kind's
// declaration together: every rules.ActionDef (parameters, operation,
// checks) has exactly one Kind (planning, guard, display) in the same
// order, and the parts a sending kind needs are there.
func TestEveryKindIsDeclaredOnce(t *testing.T) {
	t.Parallel()
	defs, kinds := rules.Actions(), Kinds()
	if len(defs) != len(kinds) {
		t.Fatalf("%d action definitions in rules, %d kinds here", len(defs), len(kinds))
	}
	ops := map[exchange.Op]rules.ActionKind{}
	for i, k := range kinds {
		t.Run(string(k.Name), func(t *testing.T) {
			if defs[i].Kind != k.Name {
				t.Errorf("kind %d is %s here and %s in rules.Actions()", i, k.Name, defs[i].Kind)
			}
			if k.plan == nil {
				t.Error("no plan")
			}
			if k.Sends() != (k.decode != nil) || k.Sends() != (k.show != nil) {
				t.Errorf("sends %v, but decode set %v and show set %v", k.Sends(), k.decode != nil, k.show != nil)
			}
			if k.Opens && !k.Sends() {
				t.Error("opens exposure without sending anything")
			}
			if other, dup := ops[k.Op()]; dup && k.Sends() {
				t.Errorf("operation %s is also sent by %s: a recorded request would not know its type", k.Op(), other)
			}
			ops[k.Op()] = k.Name
		})
	}
}

// TestSends: log and notify send nothing; every other kind, and a kind
// this version does not know (the careful answer), does.
func TestSends(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind string
		want bool
	}{
		{"log", false},
		{"notify", false},
		{"place_order", true},
		{"cancel_all", true},
		{"no_such_kind", true},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			if got := Sends(tt.kind); got != tt.want {
				t.Errorf("Sends(%q) = %v, want %v", tt.kind, got, tt.want)
			}
		})
	}
}
