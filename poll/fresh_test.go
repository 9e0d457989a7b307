package poll

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll/polltest"
)

// bookReader serves a book that the test changes at will, as strings, each
// answer decoded anew, like the live client.
type bookReader struct {
	*polltest.Reader
	mu  sync.Mutex
	bid string
}

func (r *bookReader) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return exchange.StockOrderBook{Symbol: req.Symbol, Asks: []exchange.PriceLevel{{"250.10", "5"}, {"250.30", "9"}},
		Bids: []exchange.PriceLevel{{exchange.Num(r.bid), "7"}, {"249.50", "3"}}, TS: exchange.MillisOf(polltest.Start)}, r.Hit(exchange.OpStockOrderBook)
}

func bookPoller(t *testing.T, r Reader, v *clock.Virtual) *Poller {
	t.Helper()
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook).Add(marketdata.PartPositions),
		StockPairs:   []string{"TSLAUSDT"},
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPollerBuildsEveryStateFresh: the live poller shares nothing between
// ticks. An unchanged answer still gives a State with its own data, every
// field at the tick's time (the book's age, minutes_to_close); a changed
// answer shows at once. Sharing data between ticks is the backtest's
// speed-up (backtest/source.go), not the live engine's.
func TestPollerBuildsEveryStateFresh(t *testing.T) {
	br := &bookReader{Reader: polltest.NewReader(), bid: "250.00"}
	v := clock.NewVirtual(polltest.Start)
	p := bookPoller(t, br, v)
	first := polltest.Tick(t, p, v)
	second := polltest.Tick(t, p, v)
	if second.SameData(first) {
		t.Fatal("an unchanged answer gave a State sharing the data of the tick before")
	}
	if !second.Now.Equal(v.Now()) || second.Now.Equal(first.Now) {
		t.Errorf("the second State is at %s, the tick at %s", second.Now, v.Now())
	}
	a, err := first.Stock("TSLAUSDT", marketdata.NeedBook)
	if err != nil {
		t.Fatal(err)
	}
	b, err := second.Stock("TSLAUSDT", marketdata.NeedBook)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Error("the stock pair of the tick before was handed on, want one built for this tick")
	}
	if at := second.Part(marketdata.PartStockBook).At; !at.Equal(v.Now()) {
		t.Errorf("stock_book fetched at %s, want the poll that just confirmed it (%s)", at, v.Now())
	}
	m1, _ := first.Market(0)
	m2, _ := second.Market(0)
	if math.Abs(m2.MinutesToClose-(m1.MinutesToClose-1.0/60)) > 1e-9 {
		t.Errorf("minutes_to_close %v then %v: the session must follow the tick", m1.MinutesToClose, m2.MinutesToClose)
	}

	br.mu.Lock()
	br.bid = "250.05"
	br.mu.Unlock()
	third := polltest.Tick(t, p, v)
	s, err := third.Stock("TSLAUSDT", marketdata.NeedBook)
	if err != nil {
		t.Fatal(err)
	}
	if s.Bid != 250.05 || s.Spread != 0.05 {
		t.Errorf("bid %v spread %v after the change, want 250.05 and 0.05", s.Bid, s.Spread)
	}
}

// BenchmarkLiveTick is one second of the live engine's data path with a
// venue that answers in decimal text, as the live client does: the polls
// due (books, positions and orders every second, the session once a
// minute) and the State of the tick.
func BenchmarkLiveTick(b *testing.B) {
	v := clock.NewVirtual(polltest.Start)
	p, err := New(Options{Reader: polltest.NewReader(), Clock: v, Demand: Demand{
		Parts: marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook).
			Add(marketdata.PartPositions).Add(marketdata.PartOrders),
		StockPairs:   []string{"TSLAUSDT", "NVDAUSDT"},
		ProductTypes: []exchange.ProductType{exchange.USDTFutures},
	}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v.Advance(time.Second)
		_ = p.PollDue(ctx)
		if _, err := p.State(v.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
