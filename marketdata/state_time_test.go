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
	es, _ := early.StrategyOrders("TSLAUSDT")
	ls, _ := late.StrategyOrders("TSLAUSDT")
	pairs["strategy_order"] = [2]any{es[0], ls[0]}
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
				t.Errorf("%s.%s changed from %v to %v with time alone but is not listed in timeMoves", what, tag, a.Field(i), b.Field(i))
			}
		}
	}
	if changed == 0 {
		t.Fatal("no field changed with time: the fixture no longer exercises the table")
	}
}

// TestTimeFieldsExist keeps the table in step with the documented fields,
// and checks that each field of fetched data has its own member of
// TimeFieldSet and the others none.
func TestTimeFieldsExist(t *testing.T) {
	market := 0
	var all TimeFieldSet
	for _, m := range timeMoves {
		o, ok := Object(m.object)
		if !ok {
			t.Errorf("timeMoves names unknown object %s", m.object)
			continue
		}
		if _, ok := o.Field(m.field); !ok {
			t.Errorf("timeMoves names unknown field %s.%s", m.object, m.field)
		}
		if m.object == "market" {
			market++
		}
		switch {
		case m.kind == MovesWithData && (m.bit == 0 || m.bit&(m.bit-1) != 0 || all&m.bit != 0):
			t.Errorf("%s.%s moves with its data but has member %b of TimeFieldSet, not one of its own", m.object, m.field, m.bit)
		case m.kind != MovesWithData && m.bit != 0:
			t.Errorf("%s.%s is no field of fetched data but has member %b of TimeFieldSet", m.object, m.field, m.bit)
		case m.kind == MovesWithData && m.object == "market":
			t.Errorf("market.%s cannot move with fetched data", m.field)
		}
		f, _ := Object(m.object)
		fd, _ := f.Field(m.field)
		if (m.kind == MovesWithClock) != (fd.Clock != 0) {
			t.Errorf("%s.%s moves as %d with clock value %d: every field that follows the clock, and only such a field, is a clock value", m.object, m.field, m.kind, fd.Clock)
		}
		all |= m.bit
	}
	if all != AllTimeFields {
		t.Errorf("the table's members of TimeFieldSet are %b, AllTimeFields %b", all, AllTimeFields)
	}
	if m, _ := Object("market"); market != len(m.Fields) {
		t.Errorf("every market field follows the session; the table lists %d of %d", market, len(m.Fields))
	}
}

// TestSameSessionComparesEveryField changes one field of the market at a
// time and checks that SameSession notices it, unless the field is counted
// in minutes: a field it skipped would let the engine keep a condition's
// result across a change of session.
func TestSameSessionComparesEveryField(t *testing.T) {
	base := Market{Session: "regular", IsOpen: true, Holiday: "", NextSession: "after_hours",
		NextSessionStart: time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC), MinutesSinceOpen: 10,
		MinutesToClose: 50, MinutesToNextSession: 50, have: NeedMarket | NeedSessionOpen}
	stateOf := func(m Market) *State { return &State{market: &m} }
	if !stateOf(base).SameSession(stateOf(base)) {
		t.Fatal("a market is not the same session as itself")
	}
	typ := reflect.TypeFor[Market]()
	seen := 0
	for i := range typ.NumField() {
		f := typ.Field(i)
		changed := base
		v := reflect.ValueOf(&changed).Elem().Field(i)
		switch {
		case f.Name == "have":
			changed.have |= NeedNextSession
		case v.Kind() == reflect.String:
			v.SetString(v.String() + "x")
		case v.Kind() == reflect.Bool:
			v.SetBool(!v.Bool())
		case v.Kind() == reflect.Float64:
			v.SetFloat(v.Float() + 1)
		case f.Type == reflect.TypeFor[time.Time]():
			v.Set(reflect.ValueOf(base.NextSessionStart.Add(time.Second)))
		default:
			t.Fatalf("field %s of kind %s: teach this test to change it", f.Name, v.Kind())
		}
		seen++
		clock := timeKindOf("market", f.Tag.Get("expr")) == MovesWithClock
		if got := stateOf(base).SameSession(stateOf(changed)); got != clock {
			t.Errorf("changing %s: SameSession = %v, want %v", f.Name, got, clock)
		}
	}
	if seen != typ.NumField() {
		t.Fatalf("changed %d of %d fields", seen, typ.NumField())
	}
	// The same instant in another location is the same session.
	other := base
	other.NextSessionStart = base.NextSessionStart.In(time.FixedZone("EST", -5*3600))
	if !stateOf(base).SameSession(stateOf(other)) {
		t.Error("the same next session start in another zone reads as another session")
	}
	if (&State{}).SameSession(stateOf(base)) || !(&State{}).SameSession(&State{}) || stateOf(base).SameSession(nil) {
		t.Error("a State without the market is the same session only as another without it")
	}
}

// TestTimeFieldsKinds checks the kinds the rule compiler reads.
func TestTimeFieldsKinds(t *testing.T) {
	k := TimeFields()
	for name, want := range map[string]TimeKind{
		"session": MovesWithSession, "is_open": MovesWithSession, "dst": MovesWithSession,
		"minutes_to_close": MovesWithClock, "minutes_since_open": MovesWithClock,
		"age_seconds": MovesWithData, "vwap": MovesWithData, "tradable_now": MovesWithData,
	} {
		if k[name] != want {
			t.Errorf("%s: kind %d, want %d", name, k[name], want)
		}
	}
	if _, ok := k["bid"]; ok {
		t.Error("bid does not move with time")
	}
}
