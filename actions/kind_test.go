package actions

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// TestEveryKindIsDeclaredOnce checks each kind's declaration is whole:
// one kind per name, a definition for the loader, a plan, and the parts a
// sending kind needs.
func TestEveryKindIsDeclaredOnce(t *testing.T) {
	t.Parallel()
	kinds := Kinds()
	ops := map[exchange.Op]rules.ActionKind{}
	names := map[rules.ActionKind]bool{}
	for _, k := range kinds {
		t.Run(string(k.Name()), func(t *testing.T) {
			if k.Def == nil || k.Def.Kind == "" || k.Def.Doc == "" || k.Def.Example == "" {
				t.Fatalf("incomplete definition: %+v", k.Def)
			}
			if names[k.Name()] {
				t.Errorf("%s is declared twice", k.Name())
			}
			names[k.Name()] = true
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
			ops[k.Op()] = k.Name()
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

// FuzzPlanJSON: any bytes read as a Plan (the journal file's form) give a
// plan or an error, never a panic; a plan that reads is written and read
// back alike (as JSON: a decimal such as 1.0 reads back as 1).
func FuzzPlanJSON(f *testing.F) {
	f.Add([]byte(`{"kind":"place_order","op":"place-order","request":{"symbol":"BTCUSDT","size":"1","side":"buy","orderType":"market","clientOid":"tr-a"},"clientOids":["tr-a"]}`))
	f.Add([]byte(`{"kind":"batch_place","op":"batch-place-order","request":{"symbol":"BTCUSDT","orderList":[{"size":"1","side":"buy","orderType":"limit","price":"2"}]}}`))
	f.Add([]byte(`{"kind":"cancel_all","op":"batch-cancel-orders","request":{"productType":"USDT-FUTURES","symbol":"BTCUSDT"}}`))
	f.Add([]byte(`{"kind":"log","op":"","done":{"kind":"log","op":"","request":null,"outcome":"ok","note":"hi"}}`))
	f.Add([]byte(`{"kind":"place_order","op":"set-leverage","request":{}}`))
	f.Add([]byte(`{"kind":"modify_order","op":"modify-order","request":{"symbol":"BTCUSDT","newClientOid":"x","newSize":"1.0"},"checks":[{"Symbol":"BTCUSDT","Size":"1.0","Price":"2.50"}]}`))
	f.Add([]byte(`{"kind":"place_order","op":"place-order","request":{"symbol":5}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Plan
		if err := json.Unmarshal(b, &p); err != nil {
			return
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("a plan that read does not write: %v", err)
		}
		var q Plan
		if err := json.Unmarshal(again, &q); err != nil {
			t.Fatalf("a plan that read does not read back: %v\n%s", err, again)
		}
		twice, err := json.Marshal(q)
		if err != nil || !bytes.Equal(again, twice) {
			t.Fatalf("read back differently (%v):\n%s\n%s", err, again, twice)
		}
	})
}
