package doctor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// stubVenue answers what the tests set, for the answers engine sim cannot
// give (the live venue's path family, a contract under maintenance, an
// unreadable position mode, the older demo scheme). The golden tests of
// cmd/engine run the doctor against engine sim itself.
type stubVenue struct {
	offset    time.Duration
	clockErr  error
	accounts  error // of the signed Accounts call
	family    exchange.PathFamily
	familyErr error
	mode      exchange.PosMode
	modeErr   error
	status    exchange.SymbolStatus
	book      error
}

func (s *stubVenue) SyncClock(context.Context) (time.Duration, error) { return s.offset, s.clockErr }
func (s *stubVenue) AccountInfo(context.Context) (exchange.AccountInfo, error) {
	return exchange.AccountInfo{IPs: "10.0.0.1", Authorities: []string{"coow", "cpow"}}, nil
}
func (s *stubVenue) StockPathFamily(context.Context) (exchange.PathFamily, error) {
	return s.family, s.familyErr
}
func (s *stubVenue) AccountPositionMode(context.Context, exchange.ProductType, string, string) (exchange.PosMode, error) {
	return s.mode, s.modeErr
}
func (s *stubVenue) Contracts(_ context.Context, req exchange.ContractsRequest) ([]exchange.Contract, error) {
	if req.ProductType != exchange.USDTFutures {
		return nil, nil
	}
	return []exchange.Contract{{Symbol: "BTCUSDT", BaseCoin: "BTC", QuoteCoin: "USDT", PricePlace: "1", VolumePlace: "4",
		MinTradeNum: "0.0001", MinTradeUSDT: "5", SymbolStatus: s.status}}, nil
}
func (s *stubVenue) StockInfo(context.Context, exchange.StockInfoRequest) ([]exchange.StockInfo, error) {
	return []exchange.StockInfo{{Symbol: "TSLAUSDT", Code: "TSLA", Name: "Tesla, Inc."}}, nil
}
func (s *stubVenue) Ticker(context.Context, exchange.TickerRequest) ([]exchange.Ticker, error) {
	return []exchange.Ticker{{Symbol: "BTCUSDT", LastPr: "60000"}}, nil
}
func (s *stubVenue) Accounts(context.Context, exchange.AccountsRequest) ([]exchange.Account, error) {
	return []exchange.Account{{MarginCoin: "USDT", Available: "1000", AccountEquity: "1000"}}, s.accounts
}
func (s *stubVenue) AllPositions(context.Context, exchange.AllPositionsRequest) ([]exchange.Position, error) {
	return nil, nil
}
func (s *stubVenue) PendingOrders(context.Context, exchange.PendingOrdersRequest) (exchange.PendingOrdersPage, error) {
	return exchange.PendingOrdersPage{}, nil
}
func (s *stubVenue) StockOrderBook(context.Context, exchange.StockOrderBookRequest) (exchange.StockOrderBook, error) {
	return exchange.StockOrderBook{}, s.book
}
func (s *stubVenue) StockFills(context.Context, exchange.StockFillsRequest) ([]exchange.StockFill, error) {
	return nil, nil
}

const stubRules = `
rules:
  - name: btc
    when: stock("TSLA").spread_bps < 8
    actions:
      - place_order: {symbol: BTCUSDT, open: long, type: market, size: 0.01}
`

// TestRunLines checks single lines of the checklist for answers engine
// sim cannot give.
func TestRunLines(t *testing.T) {
	healthy := func() *stubVenue {
		return &stubVenue{family: exchange.PathsSpec, mode: exchange.OneWayMode, status: exchange.SymbolNormal}
	}
	tests := []struct {
		name   string
		demo   bool
		change func(*stubVenue)
		topic  string
		status Status
		want   string // in the detail or the fix
	}{
		{"healthy", false, func(*stubVenue) {}, "symbol BTCUSDT", OK, "the rules send 0.01 at least"},
		{"reality paths", false, func(s *stubVenue) { s.family = exchange.PathsReality }, "stock market data paths", OK, "/api/v3/reality/"},
		{"no stock paths", false, func(s *stubVenue) { s.familyErr = errors.New("404") }, "stock market data paths", Warn, "will be held"},
		{"clock unreadable", false, func(s *stubVenue) { s.clockErr = errors.New("timeout") }, "clock", Warn, "could not read"},
		{"clock far off", false, func(s *stubVenue) { s.offset = -ClockFail }, "clock", Fail, "10s off"},
		{"mode unreadable", false, func(s *stubVenue) { s.modeErr = errors.New("no mode") }, "position mode USDT-FUTURES", Warn, "refuses USDT-FUTURES orders until it can read it"},
		{"maintenance", false, func(s *stubVenue) { s.status = exchange.SymbolMaintain }, "symbol BTCUSDT", Fail, "status maintain"},
		{"listed", false, func(s *stubVenue) { s.status = exchange.SymbolListed }, "symbol BTCUSDT", Warn, "not trading yet"},
		{"book refused 40006", false, func(s *stubVenue) {
			s.book = &exchange.APIError{Op: exchange.OpStockOrderBook, HTTPStatus: 400, Code: exchange.CodeKeyInvalid, Msg: "no access"}
		}, "access to stock order books", Warn, "rule btc will be held"},
		{"book refused 40025", false, func(s *stubVenue) {
			s.book = &exchange.APIError{Op: exchange.OpStockOrderBook, HTTPStatus: 400, Code: exchange.CodeNoPermission, Msg: "The user does not have this permission"}
		}, "access to stock order books", Warn, "ask the exchange to whitelist"},
		{"book failing", false, func(s *stubVenue) { s.book = errors.New("reset") }, "access to stock order books", Warn, "could not read"},
		{"older demo scheme", true, func(s *stubVenue) {
			s.accounts = &exchange.APIError{HTTPStatus: 400, Code: "40099", Msg: "demo"}
		}, "credentials", Fail, "older demo scheme"},
		{"live key on demo", true, func(s *stubVenue) {
			s.accounts = &exchange.APIError{HTTPStatus: 400, Code: exchange.CodeKeyInvalid, Msg: "invalid"}
		}, "credentials", Fail, "demo-trading area"},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(stubRules), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := healthy()
			tt.change(v)
			rep := Run(context.Background(), Options{Venue: v, RuleDirs: []string{dir}, Demo: tt.demo})
			var found *Line
			for i := range rep.Lines {
				if rep.Lines[i].Topic == tt.topic {
					found = &rep.Lines[i]
				}
			}
			var out bytes.Buffer
			_ = rep.Write(&out)
			if found == nil {
				t.Fatalf("no line %q:\n%s", tt.topic, out.String())
			}
			if found.Status != tt.status || !strings.Contains(found.Detail+found.Fix, tt.want) {
				t.Errorf("line %+v, want status %s and %q:\n%s", *found, tt.status, tt.want, out.String())
			}
			if found.Status == Fail && !rep.Blocked() {
				t.Error("a FAIL line must block")
			}
		})
	}
}

func TestReportWrite(t *testing.T) {
	rep := &Report{}
	rep.add(OK, "clock", "", "fine")
	rep.add(Fail, "credentials", "set the key", "refused (%s)", "40006")
	var out bytes.Buffer
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	want := "ok    clock                          fine\n" +
		"FAIL  credentials                    refused (40006)\n" +
		"                                     fix: set the key\n" +
		"\n1 ok, 0 warnings, 1 blocker: fix the blockers before the first live run\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if !rep.Blocked() {
		t.Error("a FAIL line must block")
	}
}
