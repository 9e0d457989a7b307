package exchange

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestEncodeQuery(t *testing.T) {
	tests := []struct {
		name string
		req  any
		want string
	}{
		{"nil", nil, ""},
		{"no request struct", 42, ""},
		{"empty struct", StockInfoRequest{}, ""},
		{"sorted, empties omitted", PendingOrdersRequest{ProductType: USDTFutures, Symbol: "TSLAUSDT", Limit: 100, Status: StateLive},
			"limit=100&productType=USDT-FUTURES&status=live&symbol=TSLAUSDT"},
		{"pointer", &FillsRequest{ProductType: USDTFutures, IDLessThan: "123", StartTime: "1700000000000", EndTime: "1700000600000"},
			"endTime=1700000600000&idLessThan=123&productType=USDT-FUTURES&startTime=1700000000000"},
		{"int zero omitted", StockFillsRequest{Symbol: "TSLAUSDT"}, "symbol=TSLAUSDT"},
		{"no omitempty tag, empty still omitted", SpotRecordRequest{Coin: "USDT"}, "coin=USDT"},
		{"defined type of a struct", FillHistoryRequest{ProductType: COINFutures, Limit: 7}, "limit=7&productType=COIN-FUTURES"},
		{"value not encoded", OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, ClientOID: "a-b_c:d/e"},
			"clientOid=a-b_c:d/e&productType=USDT-FUTURES&symbol=TSLAUSDT"},
		{"json - never sent", struct {
			A string `json:"a"`
			B string `json:"-"`
			c string
		}{A: "1", B: "2", c: "3"}, "a=1"},
		{"untagged field by name", struct{ Zed, Alpha string }{"z", "a"}, "Alpha=a&Zed=z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeQuery(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEncodeQueryRejectsUnsafeValues(t *testing.T) {
	for _, bad := range []string{"a&b", "a=b", "a b", "a%20b", "a\nb", "é", "a\x7fb"} {
		t.Run(bad, func(t *testing.T) {
			_, err := EncodeQuery(OrderDetailRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, ClientOID: bad})
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "clientOid" || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want a *ValidationError on clientOid", err)
			}
		})
	}
}

func TestEncodeQueryUnsupportedField(t *testing.T) {
	_, err := EncodeQuery(struct {
		L []string `json:"l"`
	}{})
	if err == nil || !strings.Contains(err.Error(), "only strings and integers") {
		t.Fatalf("err = %v", err)
	}
}

func TestDecodeQueryRoundTrip(t *testing.T) {
	reqs := []any{
		&PendingOrdersRequest{ProductType: USDTFutures, OrderID: "1", ClientOID: "c-1", Symbol: "TSLAUSDT", Status: StatePartiallyFilled,
			IDLessThan: "9", StartTime: "1700000000000", EndTime: "1700000600000", Limit: 50},
		&OrderHistoryRequest{ProductType: USDCFutures, OrderSource: "normal", Limit: 100},
		&SpotRecordRequest{Coin: "BTC", StartTime: "1", EndTime: "2", Limit: 500, IDLessThan: "3"},
		&StrategyOrdersRequest{Category: "usdt-futures", Type: StrategyTWAP},
	}
	for _, req := range reqs {
		t.Run(reflect.TypeOf(req).Elem().Name(), func(t *testing.T) {
			q, err := EncodeQuery(req)
			if err != nil {
				t.Fatal(err)
			}
			values, err := url.ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			got := reflect.New(reflect.TypeOf(req).Elem()).Interface()
			if err := DecodeQuery(values, got); err != nil {
				t.Fatal(err)
			}
			want(t, got, req)
		})
	}
}

func TestDecodeQuery(t *testing.T) {
	t.Run("unknown ignored, first value wins", func(t *testing.T) {
		var got StockFillsRequest
		err := DecodeQuery(url.Values{"symbol": {"TSLAUSDT", "NVDAUSDT"}, "limit": {"20"}, "junk": {"x"}}, &got)
		if err != nil {
			t.Fatal(err)
		}
		want(t, got, StockFillsRequest{Symbol: "TSLAUSDT", Limit: 20})
	})
	t.Run("non-integer limit names the field", func(t *testing.T) {
		var got FillsRequest
		err := DecodeQuery(url.Values{"limit": {"ten"}}, &got)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "limit" || !strings.Contains(ve.Rule, `"ten"`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("dst must be a struct pointer", func(t *testing.T) {
		for _, dst := range []any{nil, FillsRequest{}, new(int), (*FillsRequest)(nil)} {
			if err := DecodeQuery(url.Values{}, dst); err == nil {
				t.Errorf("DecodeQuery(%T) accepted", dst)
			}
		}
	})
}
