package backtest

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// maxSeriesSamples bounds the samples a report keeps of its equity and
// price series: a little over a week at the default one-minute sample. A
// run that takes more keeps a chosen few of each span of samples, so that
// a year's run needs no more memory than a week's.
const maxSeriesSamples = 12_000

// sampleRow is one sample of the series: the equity of every margin
// account (in the sampler's key order) and the last price of every
// charted symbol ("" when there was none).
type sampleRow struct {
	t      time.Time
	equity []decimal.Decimal
	prices []string
}

// seriesKeeper keeps the sample rows of a run in bounded memory. A run of
// at most maxSeriesSamples samples keeps every one. A longer run cuts its
// samples into consecutive buckets and keeps, of each, the first and the
// last sample and those where a series is at its low or its high in the
// bucket: the lines the report draws keep their spikes and every row is a
// real sample. Buckets are sized from the expected number of samples so
// that at most about maxSeriesSamples rows are kept.
type seriesKeeper struct {
	limit     int // maxSeriesSamples; tests lower or raise it
	expected  int // samples the run is expected to take
	perBucket int // samples per bucket; 0 keeps every sample
	sized     bool
	rows      []sampleRow // kept
	bucket    []sampleRow // the current bucket, not yet reduced
}

func newSeriesKeeper(expected int) *seriesKeeper {
	return &seriesKeeper{limit: maxSeriesSamples, expected: expected}
}

// add takes one sample.
func (k *seriesKeeper) add(r sampleRow) {
	if !k.sized {
		k.sized = true
		k.perBucket = bucketSize(k.limit, k.expected, len(r.equity)+len(r.prices))
	}
	if k.perBucket == 0 {
		k.rows = append(k.rows, r)
		return
	}
	k.bucket = append(k.bucket, r)
	if len(k.bucket) == k.perBucket {
		k.reduce()
	}
}

// bucketSize is the number of samples per bucket for a run of expected
// samples of series series kept in about limit rows, or 0 when every
// sample is kept. A bucket keeps at most 2*series+2 rows.
func bucketSize(limit, expected, series int) int {
	if expected <= limit {
		return 0
	}
	buckets := max(limit/(2*series+2), 1)
	return (expected + buckets - 1) / buckets
}

// kept returns the kept rows, oldest first.
func (k *seriesKeeper) kept() []sampleRow {
	k.reduce()
	return k.rows
}

// reduce moves the current bucket's chosen samples to the kept rows.
func (k *seriesKeeper) reduce() {
	n := len(k.bucket)
	if n == 0 {
		return
	}
	keep := make([]bool, n)
	keep[0], keep[n-1] = true, true
	first := k.bucket[0]
	for c := range first.equity {
		lo, hi := 0, 0
		for i, r := range k.bucket {
			if r.equity[c].LessThan(k.bucket[lo].equity[c]) {
				lo = i
			}
			if r.equity[c].GreaterThan(k.bucket[hi].equity[c]) {
				hi = i
			}
		}
		keep[lo], keep[hi] = true, true
	}
	for c := range first.prices {
		lo, hi := -1, -1
		var low, high float64
		for i, r := range k.bucket {
			v, err := strconv.ParseFloat(r.prices[c], 64)
			if err != nil {
				continue // no price: nothing to draw
			}
			if lo < 0 || v < low {
				lo, low = i, v
			}
			if hi < 0 || v > high {
				hi, high = i, v
			}
		}
		if lo >= 0 {
			keep[lo], keep[hi] = true, true
		}
	}
	for i, r := range k.bucket {
		if keep[i] {
			k.rows = append(k.rows, r)
		}
	}
	clear(k.bucket) // drop the references of the rows not kept
	k.bucket = k.bucket[:0]
}
