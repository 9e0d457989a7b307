package marketdata

import (
	"reflect"
	"testing"
	"time"
)

// TestAgedMatchesFreshBuild: the objects of a State that shares them with
// the State before (ages kept, or the data shared whole by advance), once
// Aged, equal those of a State built afresh at the same time; the shared
// objects are not changed, objects already at their tick and other values
// are returned as they are.
func TestAgedMatchesFreshBuild(t *testing.T) {
	in := fullInput()
	for i := range in.StrategyOrders[0].Orders {
		in.StrategyOrders[0].Orders[i].CreatedTime = ms(now.Add(-5 * time.Minute))
	}
	first := build(t, in)
	later := now.Add(90 * time.Second)

	keptIn := in
	keptIn.Prev, keptIn.KeepAges, keptIn.Now = first, AllTimeFields, later
	kept := build(t, keptIn)
	advanced, err := first.advance(later, in.Market)
	if err != nil {
		t.Fatal(err)
	}
	freshIn := in
	freshIn.Now = later
	fresh := build(t, freshIn)

	// The values a trace can show whole, as the rules' helpers give them.
	values := func(s *State) map[string]any {
		orders, _ := s.Orders("TSLAUSDT")
		positions, _ := s.Positions()
		long, _ := s.Position("TSLAUSDT", SideLong, 0)
		net, _ := s.Position("TSLAUSDT", SideNet, 0)
		strategy, _ := s.StrategyOrders("TSLAUSDT")
		spot, _ := s.SpotRecords()
		balance, _ := s.Balance("USDT")
		return map[string]any{
			"orders": orders, "all orders": s.AllOrders(), "one order": orders[0],
			"positions": positions, "long": long, "net": net,
			"strategy orders": strategy, "all strategy orders": s.AllStrategyOrders(), "one strategy order": strategy[0],
			"spot records": spot, "one spot record": spot[0],
			"balance": balance, "number": 1.5,
		}
	}
	want := values(fresh)
	for _, sc := range []struct {
		name string
		st   *State
	}{{"ages kept", kept}, {"data shared", advanced}} {
		shared := values(sc.st)
		for name, v := range shared {
			t.Run(sc.name+"/"+name, func(t *testing.T) {
				before := deepCopy(v)
				if got := sc.st.Aged(v); !reflect.DeepEqual(got, want[name]) {
					t.Errorf("Aged = %+v, want %+v", deref(got), deref(want[name]))
				}
				if !reflect.DeepEqual(v, before) {
					t.Errorf("Aged changed the State's own object: %+v, was %+v", deref(v), deref(before))
				}
			})
		}
	}
	for name, v := range want {
		t.Run("at its tick/"+name, func(t *testing.T) {
			if got := fresh.Aged(v); !same(got, v) {
				t.Errorf("Aged copied a value already at its tick")
			}
		})
	}
}

// deepCopy copies v's objects (one level of pointers, or a list of them).
func deepCopy(v any) any {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		c := reflect.New(rv.Elem().Type())
		c.Elem().Set(rv.Elem())
		return c.Interface()
	case reflect.Slice:
		c := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
		for i := range rv.Len() {
			c.Index(i).Set(reflect.ValueOf(deepCopy(rv.Index(i).Interface())))
		}
		return c.Interface()
	}
	return v
}

// deref shows the objects of v rather than their addresses.
func deref(v any) any {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		return rv.Elem().Interface()
	case reflect.Slice:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = deref(rv.Index(i).Interface())
		}
		return out
	}
	return v
}

// same reports whether a and b are the very same object or list.
func same(a, b any) bool {
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	switch ra.Kind() {
	case reflect.Pointer, reflect.Slice:
		return rb.Kind() == ra.Kind() && ra.Pointer() == rb.Pointer() && (ra.Kind() != reflect.Slice || ra.Len() == rb.Len())
	}
	return reflect.DeepEqual(a, b)
}
