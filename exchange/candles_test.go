package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fakeHistory answers candle queries from a fixed set of candle times (one
// minute apart where present) and counts the calls. inclusiveEnd chooses
// how it treats endTime, so the pager is checked under both readings.
type fakeHistory struct {
	have         map[int64]bool
	inclusiveEnd bool
	newestFirst  bool
	funding      []FundingRate // newest first

	mu    sync.Mutex // CandlePages asks several windows at once
	calls int
}

func (f *fakeHistory) count() {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
}

func (f *fakeHistory) Candles(ctx context.Context, req CandlesRequest) ([]Candle, error) {
	return nil, errors.New("not used")
}

func (f *fakeHistory) HistoryCandles(ctx context.Context, kind CandleKind, req CandlesRequest) ([]Candle, error) {
	f.count()
	if err := req.ValidateHistory(kind); err != nil {
		return nil, err
	}
	lo, hi := req.StartTime.Int(), req.EndTime.Int()
	var out []Candle
	for ts := lo - lo%60000; ts <= hi; ts += 60000 {
		if ts < lo || (ts == hi && !f.inclusiveEnd) || !f.have[ts] {
			continue
		}
		s := strconv.FormatInt(ts/60000, 10)
		out = append(out, Candle{TS: Millis(strconv.FormatInt(ts, 10)), Open: Num(s), High: Num(s), Low: Num(s), Close: Num(s), BaseVol: "0", QuoteVol: "0"})
	}
	if len(out) > req.Limit {
		out = out[len(out)-req.Limit:]
	}
	if f.newestFirst {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, nil
}

func (f *fakeHistory) FundingHistory(ctx context.Context, req FundingHistoryRequest) ([]FundingRate, error) {
	f.count()
	if err := req.Validate(time.Time{}); err != nil {
		return nil, err
	}
	lo := (req.PageNo - 1) * req.PageSize
	if lo >= len(f.funding) {
		return nil, nil
	}
	return f.funding[lo:min(lo+req.PageSize, len(f.funding))], nil
}

func TestCandlePages(t *testing.T) {
	from := time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC)
	const minutes = 1000
	tests := []struct {
		name         string
		gap          [2]int // minutes [lo, hi) without candles
		inclusiveEnd bool
		newestFirst  bool
	}{
		{name: "exclusive end"},
		{name: "inclusive end", inclusiveEnd: true},
		{name: "newest first", newestFirst: true},
		{name: "a gap longer than a window", gap: [2]int{300, 700}},
		{name: "a gap at the start", gap: [2]int{0, 10}, inclusiveEnd: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeHistory{have: map[int64]bool{}, inclusiveEnd: tc.inclusiveEnd, newestFirst: tc.newestFirst}
			want := 0
			for m := range minutes {
				if m >= tc.gap[0] && m < tc.gap[1] {
					continue
				}
				f.have[from.Add(time.Duration(m)*time.Minute).UnixMilli()] = true
				want++
			}
			req := CandlesRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, Granularity: Gran1m}
			var got []int64
			for page, err := range CandlePages(context.Background(), f, KindTrade, req, from, from.Add(minutes*time.Minute)) {
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range page {
					got = append(got, c.TS.Int())
				}
			}
			if len(got) != want {
				t.Fatalf("%d candles, want %d", len(got), want)
			}
			for i := 1; i < len(got); i++ {
				if got[i] <= got[i-1] {
					t.Fatalf("candle %d at %d after %d: not ascending", i, got[i], got[i-1])
				}
			}
			// 1000 minutes are five windows of 200; an empty window is one
			// call, a short one at most one more.
			if f.calls > 8 {
				t.Errorf("%d calls for %d minutes", f.calls, minutes)
			}
		})
	}
}

func TestCandlePagesStopsOnError(t *testing.T) {
	f := &fakeHistory{have: map[int64]bool{}}
	from := time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC)
	req := CandlesRequest{Symbol: "TSLAUSDT", ProductType: "bad", Granularity: Gran1m}
	n := 0
	for _, err := range CandlePages(context.Background(), f, KindTrade, req, from, from.Add(time.Hour)) {
		n++
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Op != OpHistoryCandles {
			t.Fatalf("err = %v, want a validation error of history-candles", err)
		}
	}
	if n != 1 || f.calls > candlePagesInFlight {
		t.Fatalf("%d yields and %d calls, want 1 and at most the %d in flight", n, f.calls, candlePagesInFlight)
	}
}

func TestFundingSince(t *testing.T) {
	base := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	f := &fakeHistory{}
	for i := 249; i >= 0; i-- { // newest first, every 8 hours
		f.funding = append(f.funding, FundingRate{Symbol: "TSLAUSDT", FundingRate: "0.0001", FundingTime: MillisOf(base.Add(time.Duration(i) * 8 * time.Hour))})
	}
	tests := []struct {
		name      string
		since     time.Time
		want      int
		wantCalls int
	}{
		{"everything", base, 250, 3},
		{"the last 10", base.Add(240 * 8 * time.Hour), 10, 1},
		{"after the newest", base.Add(250 * 8 * time.Hour), 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.calls = 0
			got, err := FundingSince(context.Background(), f, FundingHistoryRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures}, tc.since)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want || f.calls != tc.wantCalls {
				t.Fatalf("%d settlements in %d calls, want %d in %d", len(got), f.calls, tc.want, tc.wantCalls)
			}
			for i := 1; i < len(got); i++ {
				if got[i].FundingTime.Int() <= got[i-1].FundingTime.Int() {
					t.Fatal("not oldest first")
				}
			}
		})
	}
}

func TestCandleRowDecoding(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Candle
		wantErr bool
	}{
		{name: "strings", in: `["1","2","3","1","2","10","20"]`, want: Candle{"1", "2", "3", "1", "2", "10", "20"}},
		{name: "numbers", in: `[1787899800000,431.5,432,431,431.25,"0","0"]`, want: Candle{"1787899800000", "431.5", "432", "431", "431.25", "0", "0"}},
		{name: "eight columns", in: `["5","1","1","1","1","0","0","0"]`, want: Candle{"5", "1", "1", "1", "1", "0", "0"}},
		{name: "six columns", in: `["5","1","1","1","1","0"]`, wantErr: true},
		{name: "no time", in: `["","1","1","1","1","0","0"]`, wantErr: true},
		{name: "an empty price", in: `["5","","1","1","1","0","0"]`, wantErr: true},
		{name: "NaN", in: `["5","NaN","1","1","1","0","0"]`, wantErr: true},
		{name: "an object", in: `{"ts":"1"}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c Candle
			err := json.Unmarshal([]byte(tc.in), &c)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && c != tc.want {
				t.Fatalf("got %+v, want %+v", c, tc.want)
			}
		})
	}
}

// FuzzCandleRow holds the row decoder to its inverse: whatever it accepts
// encodes as seven strings and decodes back to the same candle.
func FuzzCandleRow(f *testing.F) {
	f.Add([]byte(`["1787899800000","431.25","431.60","431.10","431.55","12.4","5350.92"]`))
	f.Add([]byte(`[1,2,3,4,5,6,7,8]`))
	f.Add([]byte(`[null,"1","1","1","1","1","1"]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var c Candle
		if json.Unmarshal(in, &c) != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("encode %+v: %v", c, err)
		}
		var back Candle
		if err := json.Unmarshal(b, &back); err != nil || back != c {
			t.Fatalf("round trip of %s: %+v, %v; want %+v", b, back, err, c)
		}
	})
}
