package poll

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/poll/polltest"
)

// TestPartsTableIsComplete: every part has a row that can be planned and
// fetched.
func TestPartsTableIsComplete(t *testing.T) {
	for _, part := range marketdata.Parts() {
		row := parts[part]
		if len(row.ops) == 0 || row.every <= 0 || row.fetch == nil {
			t.Errorf("%s: row %+v lacks operations, an interval or a fetch", part, row)
		}
		for _, op := range row.ops {
			if _, ok := exchange.LookupOp(op); !ok {
				t.Errorf("%s: no rate limit known for %s", part, op)
			}
		}
	}
}

// answersReader answers every part with records decoded anew on each call
// (fresh slices, like the live client); moving an operation's generation
// changes its answers.
type answersReader struct {
	mu  sync.Mutex
	gen map[exchange.Op]int
}

func (r *answersReader) tag(op exchange.Op) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strconv.Itoa(r.gen[op])
}

func (r *answersReader) move(op exchange.Op) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gen[op]++
}

func (r *answersReader) MarketStates(context.Context) ([]exchange.MarketState, error) {
	return append([]exchange.MarketState(nil), polltest.USStates...), nil
}
func (r *answersReader) MarketCalendar(context.Context) (exchange.Calendar, error) {
	return exchange.Calendar{TimeZone: "EST", RegularConfig: []string{"SATURDAY", "SUNDAY"}}, nil
}
func (r *answersReader) StockInfo(context.Context, exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	return []exchange.StockInfo{{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla " + r.tag(exchange.OpStockInfo), TradingPeriod: exchange.TradingPeriods()}}, nil
}
func (r *answersReader) StockOrderBook(_ context.Context, req exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	return exchange.StockOrderBook{Symbol: req.Symbol, Asks: []exchange.PriceLevel{{"250.10", "5"}},
		Bids: []exchange.PriceLevel{{"250.00", exchange.Num("7" + r.tag(exchange.OpStockOrderBook))}}, TS: exchange.MillisOf(polltest.Start)}, nil
}
func (r *answersReader) StockFills(context.Context, exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	return []exchange.StockFill{{ExecID: "f" + r.tag(exchange.OpStockFills), Price: "250.05", Size: "3", Side: exchange.Buy, TS: exchange.MillisOf(polltest.Start)}}, nil
}
func (r *answersReader) AllPositions(_ context.Context, req exchange.AllPositionsRequest) ([]exchange.Position, error) {
	return []exchange.Position{{Symbol: "X" + string(req.ProductType), MarginCoin: "USDT" + r.tag(exchange.OpAllPositions)}}, nil
}
func (r *answersReader) PendingOrders(_ context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	var o exchange.PendingOrder
	o.Symbol, o.OrderID = "X"+string(req.ProductType), "o"+r.tag(exchange.OpOrdersPending)
	return exchange.PendingOrdersPage{EntrustedList: []exchange.PendingOrder{o}, EndID: o.OrderID}, nil
}
func (r *answersReader) PlanOrders(context.Context, exchange.PlanOrdersRequest) (exchange.PlanOrdersPage, error) {
	return exchange.PlanOrdersPage{}, nil
}

func (r *answersReader) PlanHistory(context.Context, exchange.PlanHistoryRequest) (exchange.PlanOrdersPage, error) {
	return exchange.PlanOrdersPage{}, nil
}

func (r *answersReader) StrategyOrders(_ context.Context, req exchange.StrategyOrdersRequest) ([]exchange.StrategyOrder, error) {
	return []exchange.StrategyOrder{{OrderID: "s" + r.tag(exchange.OpStrategyOrders), Symbol: "X" + string(req.Category)}}, nil
}
func (r *answersReader) DiscountRates(context.Context, exchange.DiscountRateRequest) ([]exchange.DiscountCoin, error) {
	return []exchange.DiscountCoin{{Coin: "BTC" + r.tag(exchange.OpDiscountRate)}}, nil
}
func (r *answersReader) SpotRecords(context.Context, exchange.SpotRecordRequest) ([]exchange.SpotRecord, error) {
	return []exchange.SpotRecord{{ID: "r" + r.tag(exchange.OpSpotRecord), Coin: "USDT"}}, nil
}
func (r *answersReader) OrderHistory(context.Context, exchange.OrderHistoryRequest) (exchange.OrderHistoryPage, error) {
	return exchange.OrderHistoryPage{}, nil
}

func (r *answersReader) PositionHistory(context.Context, exchange.PositionHistoryRequest) (exchange.PositionHistoryPage, error) {
	// Closed at the start: inside the window the poller reads.
	return exchange.PositionHistoryPage{List: []exchange.HistoryPosition{{PositionID: "h" + r.tag(exchange.OpHistoryPosition), Symbol: "TSLAUSDT", UTime: exchange.MillisOf(polltest.Start)}}}, nil
}
func (r *answersReader) Accounts(_ context.Context, req exchange.AccountsRequest) ([]exchange.Account, error) {
	return []exchange.Account{{MarginCoin: string(req.ProductType) + r.tag(exchange.OpAccounts)}}, nil
}
func (r *answersReader) Ticker(_ context.Context, req exchange.TickerRequest) ([]exchange.Ticker, error) {
	return []exchange.Ticker{{Symbol: req.Symbol, LastPr: exchange.Num("100" + r.tag(exchange.OpTicker))}}, nil
}
func (r *answersReader) MergeDepth(context.Context, exchange.MergeDepthRequest) (exchange.MergeDepth, error) {
	return exchange.MergeDepth{Asks: []exchange.PriceLevel{{"100.5", "5"}},
		Bids: []exchange.PriceLevel{{"100", exchange.Num("7" + r.tag(exchange.OpMergeDepth))}}}, nil
}

// TestEveryPartKeepsAnEqualAnswer polls every part, for two keys where it
// has keys, with answers decoded anew each time: an equal answer must not
// count as new (the engine ticks at once on news, see Poller.Arrived), and
// a changed answer of any one part must.
func TestEveryPartKeepsAnEqualAnswer(t *testing.T) {
	var all marketdata.PartSet
	for _, p := range marketdata.Parts() {
		all = all.Add(p)
	}
	for _, part := range marketdata.Parts() {
		if part == marketdata.PartMarket {
			continue // its answers are compared by the session, at every tick
		}
		t.Run(part.String(), func(t *testing.T) {
			r := &answersReader{gen: map[exchange.Op]int{}}
			v := clock.NewVirtual(polltest.Start)
			p, err := New(Options{Reader: r, Clock: v, Demand: Demand{Parts: all, StockPairs: []string{"TSLAUSDT", "NVDAUSDT"},
				ProductTypes: []exchange.ProductType{exchange.USDTFutures, exchange.COINFutures},
				Categories:   []exchange.Category{exchange.CategoryUSDTFutures, exchange.CategoryCOINFutures},
				Contracts:    []Contract{{exchange.USDTFutures, "BTCUSDT"}, {exchange.COINFutures, "BTCUSD"}}}})
			if err != nil {
				t.Fatal(err)
			}
			// poll fetches everything and returns how many stored answers
			// changed so far.
			poll := func() uint64 {
				t.Helper()
				if err := p.PollDue(context.Background()); err != nil {
					t.Fatal(err)
				}
				_, _ = p.State(v.Now())     // the records are not all complete: parse errors are not the point
				v.Advance(10 * time.Minute) // everything due again
				p.mu.Lock()
				defer p.mu.Unlock()
				return p.answers.Changes()
			}
			first := poll()
			if second := poll(); second != first {
				t.Fatalf("equal answers counted as %d changes", second-first)
			}
			for _, op := range parts[part].ops {
				r.move(op)
			}
			third := poll()
			if third == first {
				t.Fatalf("a changed %s answer was not stored", part)
			}
			if fourth := poll(); fourth != third {
				t.Fatal("the changed answer, fetched again, counted as new")
			}
		})
	}
}

// pagesReader serves n pending orders in pages of the request's limit, the
// newest first, counting requests.
type pagesReader struct {
	answersReader
	n        int
	requests int
}

func (r *pagesReader) PendingOrders(_ context.Context, req exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	r.requests++
	top := r.n
	if req.IDLessThan != "" {
		top, _ = strconv.Atoi(req.IDLessThan)
	}
	var page exchange.PendingOrdersPage
	for id := top - 1; id >= 0 && len(page.EntrustedList) < req.Limit; id-- {
		var o exchange.PendingOrder
		o.OrderID, o.Symbol = strconv.Itoa(id), "TSLAUSDT"
		page.EntrustedList = append(page.EntrustedList, o)
		page.EndID = o.OrderID
	}
	return page, nil
}

// TestPendingOrdersPages: the orders of a product type are read page by
// page through the client's iterator, a short page ending the walk, and
// more than maxPendingOrders fail the poll rather than show part of them.
func TestPendingOrdersPages(t *testing.T) {
	for _, tc := range []struct {
		orders, requests int
		fail             bool
	}{
		{0, 1, false},
		{1, 1, false},
		{150, 2, false},
		{200, 3, false}, // two full pages, then an empty one
		{maxPendingOrders + 1, maxPendingOrders/exchange.MaxPageLimit + 1, true},
	} {
		t.Run(strconv.Itoa(tc.orders), func(t *testing.T) {
			r := &pagesReader{answersReader: answersReader{gen: map[exchange.Op]int{}}, n: tc.orders}
			got, err := fetchPending(context.Background(), r, request{key: string(exchange.USDTFutures)})
			switch {
			case tc.fail:
				if err == nil || !strings.Contains(err.Error(), "more than 2000 pending orders") {
					t.Fatalf("error %v, want more than 2000 pending orders", err)
				}
			case err != nil:
				t.Fatal(err)
			case len(got) != tc.orders:
				t.Errorf("%d orders, want %d", len(got), tc.orders)
			}
			if r.requests != tc.requests {
				t.Errorf("%d requests, want %d", r.requests, tc.requests)
			}
		})
	}
	r := &pagesReader{answersReader: answersReader{gen: map[exchange.Op]int{}}}
	failing := failingPages{r}
	if _, err := fetchPending(context.Background(), failing, request{key: "USDT-FUTURES"}); !errors.Is(err, errPage) {
		t.Errorf("a failed page: error %v", err)
	}
}

var errPage = errors.New("page failed")

// failingPages fails every pending-orders request.
type failingPages struct{ *pagesReader }

func (failingPages) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	return exchange.PendingOrdersPage{}, errPage
}
