package marketdata

import (
	"slices"
	"time"
)

// Aged returns v, a value a program gave on s, with the ages of the
// objects it shows whole brought to s.Now: an order, a position, a
// strategy order or a spot record, or a list of them. The States of the
// ticks between two fetches share their objects, whose ages stay those of
// the tick they were built at unless a rule reads them
// (Answers.SetTimedFields); a trace that shows such an object whole must
// still show its age at the tick, as a State built afresh would have it.
// Objects whose age is already right, and any other value, are returned
// as they are; the others are copied, as the State is shared. (Stock
// pairs, the only other objects with fields that move with time, cannot
// be taken whole: a condition must read a field of stock(...).)
func (s *State) Aged(v any) any {
	if s == nil {
		return v
	}
	switch v := v.(type) {
	case *Order:
		return agedAt(v, s.Now)
	case []*Order:
		return agedListAt(v, s.Now)
	case *Position:
		return agedAt(v, s.Now)
	case []*Position:
		return agedListAt(v, s.Now)
	case *StrategyOrder:
		return agedAt(v, s.Now)
	case []*StrategyOrder:
		return agedListAt(v, s.Now)
	case *SpotRecord:
		return agedAt(v, s.Now)
	case []*SpotRecord:
		return agedListAt(v, s.Now)
	}
	return v
}

// ageOf is an object with an age: where its age is, and when it was born
// (zero: not known, and its age is not computed).
type ageOf[T any] interface {
	*T
	age() (*float64, time.Time)
}

func (o *Order) age() (*float64, time.Time)         { return &o.AgeSeconds, o.born }
func (p *Position) age() (*float64, time.Time)      { return &p.AgeSeconds, p.born }
func (o *StrategyOrder) age() (*float64, time.Time) { return &o.AgeSeconds, o.born }
func (r *SpotRecord) age() (*float64, time.Time)    { return &r.AgeSeconds, r.Time }

// agedAt returns o with its age at now: o itself when it has it (or has
// no birth time), else a copy. The age is computed as the builder
// computes it, so it is the very number a State built at now holds.
func agedAt[T any, P ageOf[T]](o P, now time.Time) P {
	if o == nil {
		return o
	}
	at, born := o.age()
	if born.IsZero() {
		return o
	}
	age := now.Sub(born).Seconds()
	if *at == age {
		return o
	}
	c := P(new(T))
	*c = *o
	at, _ = c.age()
	*at = age
	return c
}

// agedListAt returns list with every item at now (agedAt): list itself
// when no item needed a copy.
func agedListAt[T any, P ageOf[T]](list []P, now time.Time) []P {
	var out []P
	for i, o := range list {
		n := agedAt(o, now)
		if n == o {
			continue
		}
		if out == nil {
			out = slices.Clone(list)
		}
		out[i] = n
	}
	if out == nil {
		return list
	}
	return out
}
