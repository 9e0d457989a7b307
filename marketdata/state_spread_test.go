package marketdata

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestTopOfBookMatchesDecimal: the integer path gives bit for bit what the
// decimal definition gives, over random books of every size and precision
// (crossed, locked and empty ones too), and takes every real-looking book.
func TestTopOfBookMatchesDecimal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	price := func() float64 {
		places := r.IntN(9)
		coef := r.Int64N(int64(math.Pow10(1 + r.IntN(12))))
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(coef)/math.Pow10(places), 'f', places, 64), 64)
		return f
	}
	fast := 0
	const n = 100000
	for i := range n {
		bid := price()
		var ask float64
		switch i % 10 {
		case 0:
			ask = bid // locked
		case 1:
			ask = price() // anything, often crossed
		default:
			ask = bid + float64(1+r.IntN(50))*math.Pow10(-r.IntN(6))
			ask, _ = strconv.ParseFloat(strconv.FormatFloat(ask, 'f', -1, 64), 64)
		}
		m1, s1, b1, h1 := topOfBook(bid, ask)
		m2, s2, b2, h2 := decimalTopOfBook(bid, ask)
		if m1 != m2 || s1 != s2 || b1 != b2 || h1 != h2 {
			t.Fatalf("bid %v ask %v: integers give %v %v %v %v, decimals %v %v %v %v", bid, ask, m1, s1, b1, h1, m2, s2, b2, h2)
		}
		if _, _, _, _, ok := fixedTopOfBook(bid, ask); ok {
			fast++
		}
	}
	for _, c := range [][2]float64{{0, 0}, {249.9, 250.1}, {1e-9, 2e-9}, {1e15, 1e15 + 2}, {-1, 1}, {math.Inf(1), 1}} {
		m1, s1, b1, h1 := topOfBook(c[0], c[1])
		m2, s2, b2, h2 := decimalTopOfBook(c[0], c[1])
		if m1 != m2 || s1 != s2 || b1 != b2 || h1 != h2 {
			t.Errorf("bid %v ask %v: integers give %v %v %v %v, decimals %v %v %v %v", c[0], c[1], m1, s1, b1, h1, m2, s2, b2, h2)
		}
	}
	t.Logf("the integer path took %d of %d random books", fast, n)
	// Quotients exactly half way at the 16th place, where the rounding
	// direction shows and random books almost never land: with mid
	// coefficient 2^18 x 5^j and spread 2m (m odd), spread / mid x 10^16 is
	// m x 5^(16-j) + 1/2.
	halves := 0
	for j := range 15 {
		for _, m := range []int64{1, 3, 5, 7} {
			midC := int64(1<<18) * int64(math.Pow(5, float64(j)))
			for _, places := range []int{2, 4, 6} {
				bid := float64(midC-m) / math.Pow10(places)
				ask := float64(midC+m) / math.Pow10(places)
				m1, s1, b1, _ := topOfBook(bid, ask)
				m2, s2, b2, _ := decimalTopOfBook(bid, ask)
				if m1 != m2 || s1 != s2 || b1 != b2 {
					t.Fatalf("half way: bid %v ask %v: integers give %v %v %v, decimals %v %v %v", bid, ask, m1, s1, b1, m2, s2, b2)
				}
				if _, _, _, _, ok := fixedTopOfBook(bid, ask); ok {
					halves++
				}
			}
		}
	}
	if halves == 0 {
		t.Error("found no book whose quotient is half way: the rounding is untested")
	}
	// Real books (up to 8 significant digits) all take the integer path.
	for _, c := range [][2]float64{{249.9, 250.1}, {91250.4, 91250.6}, {0.07312, 0.07315}, {412.35, 412.43}, {18250, 18255}, {1.2345678, 1.2345679}} {
		if _, _, _, _, ok := fixedTopOfBook(c[0], c[1]); !ok {
			t.Errorf("bid %v ask %v left to the decimal path", c[0], c[1])
		}
	}
	if _, _, bps, _ := topOfBook(249.9, 250.1); bps != 8 {
		t.Errorf("spread 0.20 on 250 is %v bps, want exactly 8", bps)
	}
}

func BenchmarkTopOfBook(b *testing.B) {
	b.Run("integers", func(b *testing.B) {
		for b.Loop() {
			topOfBook(412.35, 412.43)
		}
	})
	b.Run("decimal", func(b *testing.B) {
		for b.Loop() {
			decimalTopOfBook(412.35, 412.43)
		}
	})
}

// TestMoveAndQuotientMatchDecimal: the integer paths of a position's
// unrealized_pnl_pct and roe give what the decimal definitions give.
func TestMoveAndQuotientMatchDecimal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	num := func() float64 {
		places := r.IntN(7)
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(r.Int64N(int64(math.Pow10(1+r.IntN(9)))))/math.Pow10(places), 'f', places, 64), 64)
		return f
	}
	fast := 0
	for i := range 100000 {
		from, to := num(), num()
		if i%3 == 0 {
			to = from // no move
		}
		if from > 0 {
			f := decimalOf(from)
			if got, want := moveOf(from, to), floatOf(decimalOf(to).Sub(f).Div(f)); got != want {
				t.Fatalf("move %v -> %v: integers %v, decimals %v", from, to, got, want)
			}
		}
		n, d := num(), num()
		if i%2 == 0 {
			n = -n
		}
		if d > 0 {
			if got, want := quotientOf(n, d), floatOf(decimalOf(n).Div(decimalOf(d))); got != want {
				t.Fatalf("%v / %v: integers %v, decimals %v", n, d, got, want)
			}
			if _, ok := fixedQuotient(n, d); ok {
				fast++
			}
		}
	}
	if fast == 0 {
		t.Fatal("the integer path of quotientOf never ran")
	}
	for _, c := range [][2]float64{{260, 250}, {91250.5, 91260.1}, {0.0731, 0.0735}} {
		if _, ok := fixedMove(c[0], c[1]); !ok {
			t.Errorf("move %v -> %v left to the decimal path", c[0], c[1])
		}
	}
}
