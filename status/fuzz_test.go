package status_test

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/tickrules/tickrules/status"
)

// FuzzStatusJSON feeds what engine status (with --probe) and engine why read from the
// network to their decoders and printers: any answer gives an error or a
// table, never a panic.
func FuzzStatusJSON(f *testing.F) {
	for _, seed := range []string{
		`{"time":"2026-03-09T14:30:00Z","venue":"demo","rules":[{"name":"a","phase":"pending","reason":"holding (for)","until":"2026-03-09T15:30:00Z","values":{"x":1}}]}`,
		`{"accounts":[{"product_type":"USDT-FUTURES","margin_coin":"USDT","equity":"1.5","change":"-0.2"}],"recent_orders":[{"rule":"r","outcome":"blocked","error":"e"}]}`,
		`{"name":"r","traces":[{"time":"2026-03-09T14:30:00Z","tick":1,"result":true,"phase":"firing","values":{"a":[1,2]}}]}`,
		`{"health":{"live":{"ok":false,"reasons":["the tick loop is stalled"]},"ready":{"ok":false,"reasons":[null,"x"]}}}`,
		`{"ok":true,"last_loop":"2026-03-09T14:30:00Z"}`, `{"health":null}`,
		`{}`, `[]`, `null`, `{"rules":[null]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s status.Snapshot
		if json.Unmarshal(b, &s) == nil {
			_ = status.WriteTable(io.Discard, s)
		}
		var d status.RuleDetail
		if json.Unmarshal(b, &d) == nil {
			_ = status.WriteRule(io.Discard, d)
		}
		var p status.Probe // engine status --probe
		_ = json.Unmarshal(b, &p)
	})
}
