package marketdata

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/internal/prepend"
)

// scanWindow is the trade window read the plain way, fill by fill: what
// setTrades must agree with to the last bit.
func scanWindow(trades []trade, now time.Time, window time.Duration) Stock {
	var s Stock
	from := now.Add(-window)
	var newest time.Time
	var notional float64
	for _, t := range trades {
		if newest.IsZero() || t.ts.After(newest) {
			newest, s.LastPrice = t.ts, t.price
			s.have |= NeedLastTrade
		}
		if t.ts.After(from) && !t.ts.After(now) {
			s.Volume += t.size
			s.TradesCount++
			notional += t.price * t.size
		}
	}
	if s.have&NeedLastTrade != 0 {
		s.LastTradeAgeSeconds = now.Sub(newest).Seconds()
	}
	if s.Volume > 0 {
		s.VWAP = notional / s.Volume
		s.have |= NeedWindowTrades
	}
	return s
}

// randomTrades returns n fills around base, out of order, some at equal
// times and some without a time, with sizes whose sums depend on the order
// in which they are added.
func randomTrades(r *rand.Rand, n int, base time.Time) []trade {
	out := make([]trade, n)
	for i := range out {
		out[i] = trade{price: 100 + r.Float64()*10, size: r.Float64() * 7}
		switch r.IntN(10) {
		case 0: // no time
		case 1, 2: // the same second as another fill
			out[i].ts = base.Add(time.Duration(r.IntN(n)) * time.Second)
		default:
			out[i].ts = base.Add(time.Duration(r.IntN(600_000)) * time.Millisecond)
		}
	}
	return out
}

// TestTradeWindowMatchesScan: the window found by binary search and kept
// while its fills are the same gives what the plain scan gives, bit for
// bit, tick after tick, for windows that move forwards, jump back and
// change length.
func TestTradeWindowMatchesScan(t *testing.T) {
	base := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		trades := randomTrades(r, r.IntN(40), base)
		switch seed % 3 { // as the exchange sends them (newest first), oldest first, or mixed
		case 1:
			slices.SortStableFunc(trades, func(a, b trade) int { return b.ts.Compare(a.ts) })
		case 2:
			slices.SortStableFunc(trades, func(a, b trade) int { return a.ts.Compare(b.ts) })
		}
		l := newTradeList(trades)
		now := base
		for tick := range 60 {
			switch r.IntN(8) {
			case 0:
				now = base.Add(time.Duration(r.IntN(900)) * time.Second) // anywhere
			default:
				now = now.Add(time.Duration(r.IntN(3)) * time.Second) // on, as ticks go
			}
			window := DefaultTradeWindow
			if r.IntN(5) == 0 {
				window = time.Duration(1+r.IntN(300)) * time.Second
			}
			var got Stock
			got.setTrades(l, base, now, window)
			want := scanWindow(trades, now, window)
			want.TradesAt, want.have = base, want.have|NeedTrades
			if got.LastPrice != want.LastPrice || got.LastTradeAgeSeconds != want.LastTradeAgeSeconds ||
				got.Volume != want.Volume || got.TradesCount != want.TradesCount || got.VWAP != want.VWAP || got.have != want.have {
				t.Fatalf("seed %d tick %d at %s window %s: got last %v age %v volume %v count %d vwap %v have %b, want %v %v %v %d %v %b",
					seed, tick, now.Format(time.TimeOnly), window, got.LastPrice, got.LastTradeAgeSeconds, got.Volume, got.TradesCount, got.VWAP, got.have,
					want.LastPrice, want.LastTradeAgeSeconds, want.Volume, want.TradesCount, want.VWAP, want.have)
			}
		}
	}
}

// fillsOf writes trades as the exchange sends them: one execId per fill.
func fillsOf(ids []int) []exchange.StockFill {
	out := make([]exchange.StockFill, len(ids))
	for i, id := range ids {
		out[i] = exchange.StockFill{ExecID: strconv.Itoa(id), Price: exchange.Num(fmt.Sprintf("%d.25", 100+id)),
			Size: exchange.Num(strconv.Itoa(1 + id%5)), Side: exchange.Side("buy"), TS: exchange.Millis(strconv.Itoa(1_700_000_000_000 + id*1000))}
	}
	return out
}

// TestParseTradesReusesTheListBefore: a new list that shares fills with the
// one before, shifted either way, takes their numbers from it and parses
// only the others. The numbers held for the old list are marked, so that a
// fill taken from it can be told from one parsed again.
func TestParseTradesReusesTheListBefore(t *testing.T) {
	const marked = -1.0
	cases := []struct {
		name       string
		old, fresh []int
		reused     []bool // per fill of fresh
	}{
		{"newest first, one new", []int{5, 4, 3, 2}, []int{6, 5, 4, 3}, []bool{false, true, true, true}},
		{"oldest first, one new", []int{2, 3, 4, 5}, []int{3, 4, 5, 6}, []bool{true, true, true, false}},
		{"two new, one changed", []int{5, 4, 3, 2}, []int{7, 6, 5, 9, 3}, []bool{false, false, true, false, true}},
		{"nothing shared", []int{1, 2}, []int{8, 9}, []bool{false, false}},
		{"the same fills", []int{1, 2, 3}, []int{1, 2, 3}, []bool{true, true, true}},
		{"no list before", nil, []int{1, 2}, []bool{false, false}},
		{"an empty list", []int{1, 2}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := fillsOf(c.old)
			oldTrades := make([]trade, len(old))
			for i := range oldTrades {
				oldTrades[i] = trade{price: marked, size: marked}
			}
			fresh := fillsOf(c.fresh)
			got, err := parseTrades(fresh, old, &tradeList{trades: oldTrades})
			if err != nil {
				t.Fatal(err)
			}
			plain, err := parseTrades(fresh, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, tr := range got.trades {
				if reused := tr.price == marked; reused != c.reused[i] {
					t.Errorf("fill %d (id %d): reused %v, want %v", i, c.fresh[i], reused, c.reused[i])
				}
				if !c.reused[i] && tr != plain.trades[i] {
					t.Errorf("fill %d: parsed %+v, want %+v", i, tr, plain.trades[i])
				}
			}
		})
	}
}

// FuzzParseTrades: whatever the list before, the numbers of a list are
// those of parsing it alone, and a bad number is an error either way.
func FuzzParseTrades(f *testing.F) {
	f.Add("1.5,2,1000;2.5,3,2000", "2.5,3,2000;3,1,3000")
	f.Add("", "1,1,1")
	f.Add("1,x,1", "1,1,1")
	f.Fuzz(func(t *testing.T, oldText, freshText string) {
		parse := func(s string) []exchange.StockFill {
			var out []exchange.StockFill
			if s == "" {
				return nil
			}
			for _, rec := range strings.SplitN(s, ";", 50) {
				fs := strings.SplitN(rec, ",", 3)
				for len(fs) < 3 {
					fs = append(fs, "")
				}
				out = append(out, exchange.StockFill{ExecID: rec, Price: exchange.Num(fs[0]), Size: exchange.Num(fs[1]), TS: exchange.Millis(fs[2])})
			}
			return out
		}
		old, fresh := parse(oldText), parse(freshText)
		prev, err := parseTrades(old, nil, nil)
		if err != nil {
			old, prev = nil, nil
		}
		got, gerr := parseTrades(fresh, old, prev)
		want, werr := parseTrades(fresh, nil, nil)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("errors differ: %v and %v", gerr, werr)
		}
		if gerr != nil {
			return
		}
		for i := range want.trades {
			if got.trades[i] != want.trades[i] {
				t.Fatalf("fill %d: %+v with the list before, %+v alone", i, got.trades[i], want.trades[i])
			}
		}
		if got.newest != want.newest {
			t.Fatalf("newest fill %d with the list before, %d alone", got.newest, want.newest)
		}
	})
}

// TestParseTradesSharesOneArray: lists polled one after another, each the
// one before with new fills in front, are written into one array: each
// has the numbers of parsing it alone, and none changes once made.
func TestParseTradesSharesOneArray(t *testing.T) {
	var fills []exchange.StockFill // newest first, at most 100
	var prev *tradeList
	var old []exchange.StockFill
	type kept struct {
		l      *tradeList
		copied []trade
	}
	var lists []kept
	arrays := map[*prepend.Array[trade]]bool{}
	for i := range 300 {
		f := exchange.StockFill{ExecID: strconv.Itoa(i), Price: exchange.Num(strconv.Itoa(100 + i%7)), Size: "2", TS: exchange.MillisOf(now.Add(time.Duration(i) * time.Second))}
		// The simulator's answers share their array too: the new one is
		// a new slice whose tail is the old one's head.
		fills = append([]exchange.StockFill{f}, fills[:min(len(fills), 99)]...)
		l, err := parseTrades(fills, old, prev)
		if err != nil {
			t.Fatal(err)
		}
		want, err := parseTrades(fills, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.trades, want.trades) || l.newest != want.newest || !slices.Equal(l.times, want.times) {
			t.Fatalf("poll %d: %+v, want %+v", i, l, want)
		}
		if l.back != nil {
			arrays[l.back] = true
		}
		lists = append(lists, kept{l, slices.Clone(l.trades)})
		prev, old = l, fills
	}
	for i, k := range lists {
		if !slices.Equal(k.l.trades, k.copied) {
			t.Fatalf("list %d changed after it was made", i)
		}
	}
	if n := len(arrays); n == 0 || n > 300/prepend.Room {
		t.Errorf("%d arrays for 300 lists: want them shared", n)
	}
}
