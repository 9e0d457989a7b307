package native

import (
	"reflect"
	"time"

	"github.com/expr-lang/expr/file"

	"github.com/tickrules/tickrules/marketdata"
)

// object is what compiled code can do with one object type of the State
// (stock, position, order...): read its fields, index a list of it, and run
// a list test over it. Each is an objectOf[T].
type object interface {
	field(name string, obj any, at file.Location) (any, bool)
	index(list any, i fn[int], at file.Location) (any, bool)
	length(list any) (any, bool)
	loop(name string, list any, test fn[bool], threshold *int) (any, bool)
	item() any
	pointerType() reflect.Type
}

// objectOf is the object type T with its fields by the names rules use
// (the expr tags).
type objectOf[T any] map[string]accessor[T]

// accessor reads one field of a T.
type accessor[T any] interface {
	read(obj fn[*T], at file.Location) any
}

// field reads a field of type F of a T.
type field[T, F any] func(*T) F

func get[T, F any](read func(*T) F) accessor[T] { return field[T, F](read) }

// read gives the field of the object obj gives. A nil object fails as it
// does in expr's VM.
func (f field[T, F]) read(obj fn[*T], at file.Location) any {
	return fn[F](func(e *Env) (F, error) {
		o, err := obj(e)
		if err != nil || o == nil {
			var zero F
			if err == nil {
				err = nilFieldError(at)
			}
			return zero, err
		}
		return f(o), nil
	})
}

func (o objectOf[T]) field(name string, obj any, at file.Location) (any, bool) {
	f, ok := o[name]
	x, ok2 := obj.(fn[*T])
	if !ok || !ok2 {
		return nil, false
	}
	return f.read(x, at), true
}

func (o objectOf[T]) index(list any, i fn[int], at file.Location) (any, bool) {
	l, ok := list.(fn[[]*T])
	if !ok {
		return nil, false
	}
	return index(l, i, at), true
}

func (o objectOf[T]) length(list any) (any, bool) {
	l, ok := list.(fn[[]*T])
	if !ok {
		return nil, false
	}
	return length(l), true
}

func (o objectOf[T]) loop(name string, list any, test fn[bool], threshold *int) (any, bool) {
	l, ok := list.(fn[[]*T])
	if !ok {
		return nil, false
	}
	return listTest(name, l, test, threshold)
}

// item is # inside a list test over Ts.
func (o objectOf[T]) item() any {
	return fn[*T](func(e *Env) (*T, error) { return e.Item.(*T), nil })
}

func (o objectOf[T]) pointerType() reflect.Type { return reflect.TypeFor[*T]() }

// objects returns the field tables of every object type of the State, by
// pointer type, from the rows of marketdata.Objects: each row's reader
// (FieldDoc.Read) is the accessor. A test checks the tables against the
// struct tags.
func objects() map[reflect.Type]object {
	out := map[reflect.Type]object{}
	add := func(o object) { out[o.pointerType()] = o }
	add(table[marketdata.Market]())
	add(table[marketdata.Stock]())
	add(table[marketdata.Ticker]())
	add(table[marketdata.FuturesBook]())
	add(table[marketdata.LastClose]())
	add(table[marketdata.Position]())
	add(table[marketdata.Order]())
	add(table[marketdata.StrategyOrder]())
	add(table[marketdata.OCOLeg]())
	add(table[marketdata.TrailingStop]())
	add(table[marketdata.Iceberg]())
	add(table[marketdata.TWAP]())
	add(table[marketdata.Balance]())
	add(table[marketdata.DiscountTier]())
	add(table[marketdata.SpotRecord]())
	return out
}

// table is the field table of the object of Go type T, from its rows. A
// field whose reader gives a type accessorOf does not know is left out,
// which TestFieldTables reports.
func table[T any]() objectOf[T] {
	out := objectOf[T]{}
	for _, doc := range marketdata.Objects() {
		if doc.GoType() != reflect.TypeFor[T]() {
			continue
		}
		for _, f := range doc.Fields {
			if a, ok := accessorOf[T](f.Read); ok {
				out[f.Name] = a
			}
		}
	}
	return out
}

// accessorOf turns a row's reader, a func(*T) F, into an accessor that
// compiled code calls with F known.
func accessorOf[T any](read any) (accessor[T], bool) {
	switch r := read.(type) {
	case func(*T) string:
		return get(r), true
	case func(*T) float64:
		return get(r), true
	case func(*T) int:
		return get(r), true
	case func(*T) bool:
		return get(r), true
	case func(*T) time.Time:
		return get(r), true
	case func(*T) []string:
		return get(r), true
	case func(*T) []*marketdata.OCOLeg:
		return get(r), true
	case func(*T) []*marketdata.TrailingStop:
		return get(r), true
	case func(*T) []*marketdata.Iceberg:
		return get(r), true
	case func(*T) []*marketdata.TWAP:
		return get(r), true
	}
	return nil, false
}
