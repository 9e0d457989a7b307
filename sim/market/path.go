package market

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// series is a price path. It answers in whole ticks so that each kind can
// round the way it computes: points exactly, the walk from its float value.
type series interface {
	// stepAt returns the step that t falls in.
	stepAt(t time.Time) step
	// ticks is the price at t, which falls in st (stepAt(t)), in whole
	// ticks of tick.
	ticks(t time.Time, st step, tick decimal.Decimal, tickF float64) int64
}

// newSeries builds the path of spec; exactly one kind must be set.
func newSeries(spec PathSpec, opts Options) (series, error) {
	kinds := 0
	for _, set := range []bool{len(spec.Points) > 0, spec.CSV != "", spec.RandomWalk != nil, spec.Candles != nil, spec.CandlePath != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, errors.New("set exactly one of points, csv, random_walk and candles")
	}
	switch {
	case len(spec.Points) > 0:
		return newPoints(spec.Points)
	case spec.CSV != "":
		name := spec.CSV
		if !filepath.IsAbs(name) && opts.BaseDir != "" {
			name = filepath.Join(opts.BaseDir, name)
		}
		pts, err := readCSVFile(name)
		if err != nil {
			return nil, err
		}
		return newPoints(pts)
	case spec.Candles != nil:
		c, err := spec.Candles.path(opts.BaseDir)
		if err != nil {
			return nil, err
		}
		return &points{list: candleList{c}}, nil
	case spec.CandlePath != nil:
		if err := spec.CandlePath.Check(); err != nil {
			return nil, err
		}
		return &points{list: candleList{spec.CandlePath}}, nil
	default:
		return newWalk(*spec.RandomWalk, opts.Start, opts.End)
	}
}

// points interpolates linearly between points and holds the first and last
// prices outside them.
type points struct {
	list pointList
}

// pointList is the points of a points path, in time order: held in slices
// (pointSlices), or computed from candles when asked (candleList), so that
// a long candle history is not held as four points a candle.
type pointList interface {
	len() int
	at(i int) time.Time
	price(i int) decimal.Decimal
}

// pointSlices are points held as they were given.
type pointSlices struct {
	at0    []time.Time
	prices []decimal.Decimal
}

func (s *pointSlices) len() int                    { return len(s.at0) }
func (s *pointSlices) at(i int) time.Time          { return s.at0[i] }
func (s *pointSlices) price(i int) decimal.Decimal { return s.prices[i] }

func newPoints(pts []Point) (*points, error) {
	s := &pointSlices{at0: make([]time.Time, len(pts)), prices: make([]decimal.Decimal, len(pts))}
	for i, pt := range pts {
		if !pt.Price.IsPositive() {
			return nil, fmt.Errorf("point %d: price %s is not positive", i, pt.Price)
		}
		if i > 0 && !pt.At.After(pts[i-1].At) {
			return nil, fmt.Errorf("point %d: time %s is not after the previous point's %s", i, pt.At.Format(time.RFC3339), pts[i-1].At.Format(time.RFC3339))
		}
		s.at0[i] = pt.At
		s.prices[i] = pt.Price
	}
	return &points{list: s}, nil
}

// stepAt returns the step at t. Segment i is the time from point i-1 to
// point i (0 before the first point, len(points) after the last). A held
// segment is one step; an interpolating one has a step per second, so that
// its book's sizes are redrawn at most once a second, as the price moves.
func (p *points) stepAt(t time.Time) step {
	n := p.list.len()
	// i is the first point after t.
	i := sort.Search(n, func(i int) bool { return p.list.at(i).After(t) })
	var next time.Time // the first point after t, where the segment ends
	if i < n {
		next = p.list.at(i)
	}
	switch {
	case i == 0:
		return step{end: next}
	case i == n || p.list.price(i-1).Equal(p.list.price(i)):
		return step{seg: int64(i), start: p.list.at(i - 1), end: next}
	}
	sec := t.Truncate(time.Second)
	start := sec
	if prev := p.list.at(i - 1); start.Before(prev) {
		start = prev
	}
	end := sec.Add(time.Second)
	if next.Before(end) {
		end = next
	}
	return step{seg: int64(i), sub: sec.Unix(), start: start, end: end, moving: true}
}

func (p *points) ticks(t time.Time, st step, tick decimal.Decimal, _ float64) int64 {
	i := int(st.seg)
	switch {
	case i == 0:
		return p.list.price(0).DivRound(tick, 0).IntPart()
	case i == p.list.len():
		return p.list.price(i-1).DivRound(tick, 0).IntPart()
	}
	// p0 + (p1-p0)*elapsed/span in ticks, as one exact division:
	// (p0*span + (p1-p0)*elapsed) / (span*tick).
	t0, t1 := p.list.at(i-1), p.list.at(i)
	p0, p1 := p.list.price(i-1), p.list.price(i)
	elapsed := decimal.NewFromInt(int64(t.Sub(t0)))
	span := decimal.NewFromInt(int64(t1.Sub(t0)))
	return p0.Mul(span).Add(p1.Sub(p0).Mul(elapsed)).DivRound(span.Mul(tick), 0).IntPart()
}
