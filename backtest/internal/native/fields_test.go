package native

import (
	"reflect"
	"testing"
	"time"

	"github.com/expr-lang/expr/file"

	"github.com/tickrules/tickrules/marketdata"
)

// TestFieldTables checks the field tables against the State's types: every
// documented object has a table, every field with an expr name is in it
// under that name, and each accessor reads its own field.
func TestFieldTables(t *testing.T) {
	objs := objects()
	for _, doc := range marketdata.Objects() {
		if objs[reflect.PointerTo(doc.GoType())] == nil {
			t.Errorf("object %s (%s) has no field table", doc.Name, doc.GoType())
		}
	}
	for pt, o := range objs {
		t.Run(pt.Elem().Name(), func(t *testing.T) {
			v := reflect.New(pt.Elem())
			fill(v.Elem())
			tagged := 0
			for i := range pt.Elem().NumField() {
				f := pt.Elem().Field(i)
				name := f.Tag.Get("expr")
				if name == "" || name == "-" || !f.IsExported() {
					continue
				}
				tagged++
				got, ok := readField(o, name, v.Interface())
				if !ok {
					t.Errorf("field %s (%s) is not in the table", name, f.Name)
					continue
				}
				if want := v.Elem().Field(i).Interface(); !reflect.DeepEqual(got, want) {
					t.Errorf("field %s reads %v, want %v (%s)", name, got, want, f.Name)
				}
			}
			if n := reflect.ValueOf(o).Len(); n != tagged {
				t.Errorf("the table has %d fields, the type %d with an expr name", n, tagged)
			}
		})
	}
}

// readField reads the field name of obj, a *T, through o's accessor.
func readField(o object, name string, obj any) (any, bool) {
	// The accessor takes a fn[*T]: the object's item closure (#) is
	// one, reading Env.item.
	f, ok := o.field(name, o.item(), file.Location{})
	if !ok {
		return nil, false
	}
	out := reflect.ValueOf(f).Call([]reflect.Value{reflect.ValueOf(&Env{Item: obj})})
	if !out[1].IsNil() {
		return nil, false
	}
	return out[0].Interface(), true
}

// fill gives every field of a struct a distinct value that is not zero.
func fill(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.Float64:
			f.SetFloat(float64(i) + 0.5)
		case reflect.Int:
			f.SetInt(int64(i) + 1)
		case reflect.String:
			f.SetString("text" + string(rune('a'+i)))
		case reflect.Bool:
			f.SetBool(i%2 == 0)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Struct:
			if f.Type() == reflect.TypeFor[time.Time]() {
				f.Set(reflect.ValueOf(time.Unix(int64(i)*1000, 0)))
			}
		}
	}
}
