package marketdata

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestJSONNamesAreRuleNames: every object a trace can show whole is written
// to JSON in the names of the rule language. A field rules read has a json
// tag equal to its expr tag; an exported field rules cannot read is
// json:"-"; and the JSON of the object has exactly the documented fields.
// A new field, or a renamed expr tag, fails here until its json tag follows.
func TestJSONNamesAreRuleNames(t *testing.T) {
	for _, o := range Objects() {
		t.Run(o.Name, func(t *testing.T) {
			gt := o.GoType()
			for i := range gt.NumField() {
				f := gt.Field(i)
				if !f.IsExported() {
					continue
				}
				exprName := f.Tag.Get("expr")
				jsonName := f.Tag.Get("json")
				switch {
				case exprName == "" || exprName == "-":
					if jsonName != "-" {
						t.Errorf("%s.%s: rules cannot read it, json tag %q, want \"-\"", gt.Name(), f.Name, jsonName)
					}
				case jsonName != exprName:
					t.Errorf("%s.%s: json tag %q, want %q (its expr name)", gt.Name(), f.Name, jsonName, exprName)
				}
			}
			b, err := json.Marshal(reflect.New(gt).Interface())
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			keys := make([]string, 0, len(got))
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			want := o.FieldNames()
			slices.Sort(want)
			if !slices.Equal(keys, want) {
				t.Errorf("JSON keys %s, want the rule names %s", strings.Join(keys, ","), strings.Join(want, ","))
			}
		})
	}
}
