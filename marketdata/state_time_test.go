package marketdata

import (
	"reflect"
	"testing"
	"time"
)

// TestTimeFieldsAreComplete builds the same fetched data at two times and
// checks that every field whose value differs is listed as moving with
// time: a field missing from the table would let the engine keep a stale
// result for a condition that reads it.
func TestTimeFieldsAreComplete(t *testing.T) {
	in := fullInput()
	early := build(t, in)
	in.Now = in.Now.Add(2*time.Minute + 30*time.Second)
	late := build(t, in)

	pairs := map[string][2]any{}
	for i, s := range early.Stocks() {
		pairs["stock "+s.Symbol] = [2]any{s, late.Stocks()[i]}
	}
	pairs["position"] = [2]any{early.positions[0], late.positions[0]}
	pairs["order"] = [2]any{early.orders[0], late.orders[0]}
	pairs["strategy_order"] = [2]any{early.strategyBySym["TSLAUSDT"][0], late.strategyBySym["TSLAUSDT"][0]}
	pairs["spot_record"] = [2]any{early.spotRecords[0], late.spotRecords[0]}
	changed := 0
	for what, p := range pairs {
		object := what
		if len(what) > 5 && what[:5] == "stock" {
			object = "stock"
		}
		a, b := reflect.ValueOf(p[0]).Elem(), reflect.ValueOf(p[1]).Elem()
		for i := range a.NumField() {
			tag := a.Type().Field(i).Tag.Get("expr")
			if tag == "" || tag == "-" {
				continue
			}
			if reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
				continue
			}
			changed++
			if !MovesWithTime(object, tag) {
				t.Errorf("%s.%s changed from %v to %v with time alone but is not listed in timeFields", what, tag, a.Field(i), b.Field(i))
			}
		}
	}
	if changed == 0 {
		t.Fatal("no field changed with time: the fixture no longer exercises the table")
	}
}

// TestTimeFieldsExist keeps the table in step with the documented fields.
func TestTimeFieldsExist(t *testing.T) {
	for object, fields := range timeFields {
		o, ok := Object(object)
		if !ok {
			t.Errorf("timeFields names unknown object %s", object)
			continue
		}
		for _, f := range fields {
			if _, ok := o.Field(f); !ok {
				t.Errorf("timeFields names unknown field %s.%s", object, f)
			}
		}
	}
	if m, _ := Object("market"); len(timeFields["market"]) != len(m.Fields) {
		t.Errorf("every market field follows the session; the table lists %d of %d", len(timeFields["market"]), len(m.Fields))
	}
}
