package poll

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// countingReader answers every poll with fixed data and counts calls per op.
type countingReader struct {
	mu    sync.Mutex
	calls map[exchange.Op]int
	fail  map[exchange.Op]error
}

func newCountingReader() *countingReader {
	return &countingReader{calls: map[exchange.Op]int{}, fail: map[exchange.Op]error{}}
}

func (r *countingReader) hit(op exchange.Op) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[op]++
	return r.fail[op]
}

func (r *countingReader) count(op exchange.Op) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[op]
}

var usStates = []exchange.MarketState{{Market: "US", DaylightType: exchange.DST, StateList: []exchange.SessionWindow{
	{State: exchange.PreMarket, TimeZone: "EST", StartTime: "04:00", EndTime: "09:30"},
	{State: exchange.Regular, TimeZone: "EST", StartTime: "09:30", EndTime: "16:00"},
	{State: exchange.AfterHours, TimeZone: "EST", StartTime: "16:00", EndTime: "20:00"},
	{State: exchange.Overnight, TimeZone: "EST", StartTime: "20:00", EndTime: "04:00"},
}}}

func (r *countingReader) MarketStates(context.Context) ([]exchange.MarketState, error) {
	return usStates, r.hit(exchange.OpMarketStates)
}
func (r *countingReader) MarketCalendar(context.Context) (exchange.Calendar, error) {
	return exchange.Calendar{TimeZone: "EST", RegularConfig: []string{"SATURDAY", "SUNDAY"}}, r.hit(exchange.OpMarketCalendar)
}
func (r *countingReader) StockInfo(context.Context, exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	return []exchange.StockInfo{{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla", TradingPeriod: exchange.TradingPeriods()}}, r.hit(exchange.OpStockInfo)
}
func (r *countingReader) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	return exchange.StockOrderBook{Symbol: req.Symbol, Asks: []exchange.PriceLevel{{"250.10", "5"}}, Bids: []exchange.PriceLevel{{"250.00", "7"}}}, r.hit(exchange.OpStockOrderBook)
}
func (r *countingReader) StockFills(context.Context, exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	return nil, r.hit(exchange.OpStockFills)
}
func (r *countingReader) AllPositions(context.Context, exchange.AllPositionsRequest) ([]exchange.Position, error) {
	return nil, r.hit(exchange.OpAllPositions)
}
func (r *countingReader) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	return exchange.PendingOrdersPage{}, r.hit(exchange.OpOrdersPending)
}
func (r *countingReader) StrategyOrders(context.Context, exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error) {
	return nil, r.hit(exchange.OpStrategyOrders)
}
func (r *countingReader) DiscountRates(context.Context, exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error) {
	return nil, r.hit(exchange.OpDiscountRate)
}
func (r *countingReader) SpotRecords(context.Context, exchange.SpotRecordRequest) ([]exchange.SpotRecord, error) {
	return nil, r.hit(exchange.OpSpotRecord)
}
func (r *countingReader) Accounts(context.Context, exchange.AccountsRequest) ([]exchange.Account, error) {
	return nil, r.hit(exchange.OpAccounts)
}

// 2026-03-09 is the Monday after the DST change: 15:50 EDT is 19:50 UTC.
var pollStart = time.Date(2026, 3, 9, 19, 50, 0, 0, time.UTC)

func TestPollerPollsOnlyTheDemand(t *testing.T) {
	r := newCountingReader()
	v := clock.NewVirtual(pollStart)
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{
		Parts:      marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook),
		StockPairs: []string{"TSLAUSDT", "NVDAUSDT"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if p.FullyPolled() {
		t.Fatal("fully polled before any poll")
	}
	for i := 0; i < 60; i++ {
		if err := p.PollDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		v.Advance(time.Second)
	}
	if !p.FullyPolled() {
		t.Error("not fully polled after a minute")
	}
	// Two pairs at 10/s x 0.5 headroom fit in 1 s: 60 polls each.
	if got := r.count(exchange.OpStockOrderBook); got != 120 {
		t.Errorf("order book polls = %d, want 120", got)
	}
	if got := r.count(exchange.OpMarketStates); got != 1 {
		t.Errorf("states polls = %d, want 1 (once a minute)", got)
	}
	for _, op := range []exchange.Op{exchange.OpAllPositions, exchange.OpOrdersPending, exchange.OpStockFills, exchange.OpStockInfo, exchange.OpSpotRecord} {
		if n := r.count(op); n != 0 {
			t.Errorf("%s polled %d times though no rule reads it", op, n)
		}
	}
}

func TestPollerIntervalsFitRateLimits(t *testing.T) {
	pairs := make([]string, 12)
	for i := range pairs {
		pairs[i] = string(rune('A'+i)) + "USDT"
	}
	p, err := New(Options{Reader: newCountingReader(), Clock: clock.NewVirtual(pollStart), Demand: Demand{
		Parts:        marketdata.PartSet(0).Add(marketdata.PartStockBook).Add(marketdata.PartPositions).Add(marketdata.PartSpotRecords),
		StockPairs:   pairs,
		ProductTypes: exchange.ProductTypes(),
	}, Intervals: map[marketdata.Part]time.Duration{marketdata.PartSpotRecords: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		part marketdata.Part
		want time.Duration
	}{
		{marketdata.PartStockBook, 2400 * time.Millisecond}, // 12 pairs at 5/s
		{marketdata.PartPositions, 1200 * time.Millisecond}, // 3 product types at 2.5/s
		{marketdata.PartSpotRecords, 2 * time.Second},       // an override below 1/s x 0.5 is raised
		{marketdata.PartOrders, 0},                          // not read
	}
	for _, tt := range tests {
		if got := p.Interval(tt.part); got != tt.want {
			t.Errorf("Interval(%s) = %s, want %s", tt.part, got, tt.want)
		}
	}
	for op, rate := range p.Budget() {
		info, _ := exchange.LookupOp(op)
		if limit := float64(info.Rate) / info.Per.Seconds(); rate > limit*0.5+1e-9 {
			t.Errorf("%s polled at %.2f/s, above half its limit %.0f/s", op, rate, limit)
		}
	}
	if _, err := New(Options{Reader: newCountingReader(), Clock: clock.NewVirtual(pollStart), Demand: Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartStockBook)}}); err == nil {
		t.Error("a book demand without pairs was accepted")
	}
}

func TestPollerStaleness(t *testing.T) {
	r := newCountingReader()
	v := clock.NewVirtual(pollStart)
	parts := marketdata.PartSet(0).Add(marketdata.PartMarket).Add(marketdata.PartStockBook)
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{Parts: parts, StockPairs: []string{"TSLAUSDT"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := p.State(v.Now())
	if err != nil {
		t.Fatal(err)
	}
	if part, stale := p.Stale(st, parts); stale {
		t.Fatalf("fresh state is stale in %s", part)
	}
	r.fail[exchange.OpStockOrderBook] = errors.New("connection refused")
	for i := 0; i < 3; i++ {
		v.Advance(time.Second)
		if err := p.PollDue(context.Background()); err == nil || !strings.Contains(err.Error(), "stock_book TSLAUSDT") {
			t.Fatalf("poll error %v does not name the part", err)
		}
	}
	st, _ = p.State(v.Now())
	if _, stale := p.Stale(st, parts); stale {
		t.Error("stale after exactly three intervals; the limit is more than three")
	}
	v.Advance(time.Second)
	st, _ = p.State(v.Now())
	if part, stale := p.Stale(st, parts); !stale || part != marketdata.PartStockBook {
		t.Errorf("Stale = %s %v, want stock_book true", part, stale)
	}
}

func TestPollerSessionMovesWithTheTick(t *testing.T) {
	r := newCountingReader()
	v := clock.NewVirtual(pollStart)
	p, err := New(Options{Reader: r, Clock: v, Demand: Demand{Parts: marketdata.PartSet(0).Add(marketdata.PartMarket)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.PollDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		after   time.Duration
		session string
		toClose float64
	}{
		{0, "regular", 10},
		{5 * time.Minute, "regular", 5},
		{11 * time.Minute, "after_hours", 239},
	} {
		st, err := p.State(pollStart.Add(tc.after))
		if err != nil {
			t.Fatal(err)
		}
		m, err := st.Market(0)
		if err != nil {
			t.Fatal(err)
		}
		if m.Session != tc.session || m.MinutesToClose != tc.toClose {
			t.Errorf("at +%s: %s, %.0f min to close; want %s, %.0f", tc.after, m.Session, m.MinutesToClose, tc.session, tc.toClose)
		}
	}
	if n := r.count(exchange.OpMarketStates); n != 1 {
		t.Errorf("states fetched %d times; the session must be recomputed without refetching", n)
	}
}
