package sim

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite scenario.schema.json")

func TestSchemaFileIsCurrent(t *testing.T) {
	got := Schema()
	if *updateSchema {
		if err := os.WriteFile("scenario.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("scenario.schema.json is out of date: go test ./sim -run TestSchemaFileIsCurrent -update-schema")
	}
}

func TestSnakeName(t *testing.T) {
	for in, want := range map[string]string{"minTradeUSDT": "min_trade_usdt", "bizOrderId": "biz_order_id", "isRwa": "is_rwa", "ocoParams": "oco_params", "symbol": "symbol"} {
		if got := snakeName(in); got != want {
			t.Errorf("snakeName(%q) = %q, want %q", in, got, want)
		}
		if got := camel(want); !strings.EqualFold(got, in) {
			t.Errorf("camel(%q) = %q, want %q (case-insensitively)", want, got, in)
		}
	}
}

// TestScenariosMatchSchema checks every shipped scenario structurally
// against the schema: types, enums, required keys, no unknown keys.
func TestScenariosMatchSchema(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "demo.yaml", filepath.Join("simtest", "conformance.yaml"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			for _, p := range checkSchema(schema, doc, "") {
				t.Error(p)
			}
		})
	}
	t.Run("a bad document fails", func(t *testing.T) {
		var doc any
		if err := yaml.Unmarshal([]byte("clock: {start: 2026-01-01T00:00:00Z}\naccounts: [{uid: \"1\", api_key: k, position_mode: {SPOT: one_way_mode}, extra: 1}]\n"), &doc); err != nil {
			t.Fatal(err)
		}
		if got := checkSchema(schema, doc, ""); len(got) != 2 {
			t.Fatalf("problems = %v, want 2 (bad product type, unknown key)", got)
		}
	})
}

// checkSchema is a small structural validator of the subset of JSON Schema
// that Schema produces.
func checkSchema(s map[string]any, v any, path string) []string {
	var out []string
	if !typeOK(s["type"], v) {
		return []string{fmt.Sprintf("%s: %T does not match type %v", path, v, s["type"])}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, any(fmt.Sprint(v))) {
		out = append(out, fmt.Sprintf("%s: %v is not one of %v", path, v, enum))
	}
	switch val := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asStrings(s["required"]) {
			if _, ok := val[r]; !ok {
				out = append(out, fmt.Sprintf("%s: %s is required", path, r))
			}
		}
		for k, child := range val {
			if names, ok := s["propertyNames"].(map[string]any); ok {
				out = append(out, checkSchema(names, k, path+"/"+k+"(key)")...)
			}
			switch {
			case props != nil && props[k] != nil:
				out = append(out, checkSchema(props[k].(map[string]any), child, path+"/"+k)...)
			case s["additionalProperties"] == false:
				out = append(out, fmt.Sprintf("%s: unknown key %s", path, k))
			default:
				if ap, ok := s["additionalProperties"].(map[string]any); ok {
					out = append(out, checkSchema(ap, child, path+"/"+k)...)
				}
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range val {
				out = append(out, checkSchema(items, it, fmt.Sprintf("%s/%d", path, i))...)
			}
		}
	}
	return out
}

func asStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func typeOK(want any, v any) bool {
	if want == nil {
		return true
	}
	types := asStrings(want)
	if s, ok := want.(string); ok {
		types = []string{s}
	}
	var got string
	switch v.(type) {
	case map[string]any:
		got = "object"
	case []any:
		got = "array"
	case string, time.Time:
		got = "string"
	case bool:
		got = "boolean"
	case int, int64:
		got = "integer"
		if slices.Contains(types, "number") {
			return true
		}
	case float64:
		got = "number"
	case nil:
		return true
	}
	return slices.Contains(types, got)
}
