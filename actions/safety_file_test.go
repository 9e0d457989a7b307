package actions

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSafetyUnknownKeys(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string // each a substring of the error
	}{
		{"top-level typo", "max_order_per_minute: 5\n",
			[]string{`safety.yaml:1:1: unknown key "max_order_per_minute" at the top level; did you mean max_orders_per_minute?`}},
		{"limit typo in default", "default:\n  max_order_sise: 1\n",
			[]string{`safety.yaml:2:3: unknown key "max_order_sise" in default; did you mean max_order_size? (allowed keys: max_order_size, max_notional, max_position)`}},
		{"limit typo in a symbol", "symbols:\n  BTCUSDT: {max_postion: 1}\n",
			[]string{`safety.yaml:2:13: unknown key "max_postion" in symbols.BTCUSDT; did you mean max_position?`}},
		{"nothing close", "colour: red\n", []string{`unknown key "colour" at the top level; allowed keys: allowed_symbols, default, symbols, max_orders_per_minute, kill_switch_file`}},
		{"every mistake at once", "kill_swich_file: x\ndefault: {max_notionl: 1}\n",
			[]string{`1:1: unknown key "kill_swich_file"`, `2:11: unknown key "max_notionl" in default`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "safety.yaml")
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := LoadSafety(path)
			if !errors.Is(err, ErrUnknownSafetyKey) {
				t.Fatalf("error %v, want an unknown key", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks %q", err, w)
				}
			}
		})
	}
}

// TestSafetyExampleAndSchema loads the documented example and checks that
// the JSON Schema names exactly the keys the engine reads.
func TestSafetyExampleAndSchema(t *testing.T) {
	s, err := LoadSafety(filepath.Join("..", "examples", "safety", "safety.yaml"))
	if err != nil {
		t.Fatalf("the documented example does not load: %v", err)
	}
	if len(s.AllowedSymbols) == 0 || s.MaxOrdersPerMinute == 0 || s.KillSwitchFile == "" || !s.Symbols["BTCUSDT"].MaxPosition.IsPositive() {
		t.Errorf("the example leaves keys out: %+v", s)
	}
	b, err := os.ReadFile(filepath.Join("..", "docs", "safety.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       struct {
			Limits struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"limits"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	keysOf := func(m map[string]json.RawMessage) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	tagsOf := func(t reflect.Type) []string {
		var out []string
		for f := range t.Fields() {
			if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := keysOf(schema.Properties), tagsOf(reflect.TypeFor[Safety]()); !slices.Equal(got, want) {
		t.Errorf("schema keys %v, the engine reads %v", got, want)
	}
	if got, want := keysOf(schema.Defs.Limits.Properties), tagsOf(reflect.TypeFor[Limits]()); !slices.Equal(got, want) {
		t.Errorf("schema limit keys %v, the engine reads %v", got, want)
	}
}

// FuzzSafetyFile feeds decodeSafety arbitrary files: it must return a
// Safety or an error, never panic.
func FuzzSafetyFile(f *testing.F) {
	for _, seed := range []string{
		"allowed_symbols: [BTCUSDT]\ndefault: {max_order_size: 1.5}\nsymbols:\n  BTCUSDT: {max_notional: 50000}\n",
		"max_order_per_minute: 5\n", "symbols: [1, 2]\n", "default: 3\n", "- a\n- b\n", "", "{", "symbols:\n  X: {max_postion: 1}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeSafety("fuzz.yaml", b)
	})
}
