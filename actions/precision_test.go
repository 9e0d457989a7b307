package actions

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestPrecisionOf(t *testing.T) {
	p, err := PrecisionOf(exchange.Contract{Symbol: "BTCUSDT", PricePlace: "1", PriceEndStep: "5", VolumePlace: "4", SizeMultiplier: "0.0001", MinTradeNum: "0.0001", MinTradeUSDT: "5"})
	if err != nil {
		t.Fatal(err)
	}
	if p.PricePlace != 1 || p.VolumePlace != 4 || !p.PriceEndStep.Equal(d("5")) || !p.MinNotional.Equal(d("5")) {
		t.Errorf("PrecisionOf = %+v", p)
	}
	if _, err := PrecisionOf(exchange.Contract{Symbol: "X", PricePlace: "two"}); err == nil {
		t.Error("PrecisionOf accepted pricePlace two")
	}
	// Missing steps default to one unit of the last place.
	p, err = PrecisionOf(exchange.Contract{Symbol: "Y", PricePlace: "2", VolumePlace: "3"})
	if err != nil || !p.SizeMultiplier.Equal(d("0.001")) || !p.PriceEndStep.Equal(d("1")) {
		t.Errorf("defaults = %+v, %v", p, err)
	}
}

func TestRoundSize(t *testing.T) {
	p := Precision{VolumePlace: 2, SizeMultiplier: d("0.05"), MinSize: d("0.1")}
	tests := []struct {
		in, want string
		err      error
	}{
		{"1.23", "1.2", nil},
		{"1.25", "1.25", nil},
		{"1.299999", "1.25", nil},
		{"0.3", "0.3", nil},
		{"0.09", "", ErrBelowMinimum},
		{"0", "", ErrBelowMinimum},
		{"-1", "", ErrBelowMinimum},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := p.RoundSize(d(tt.in))
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.err == nil && got.String() != tt.want {
				t.Errorf("RoundSize(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestRoundPrice(t *testing.T) {
	p := Precision{PricePlace: 1, PriceEndStep: d("5")} // step 0.5
	tests := []struct {
		in   string
		side exchange.Side
		want string
	}{
		{"27000.74", exchange.Buy, "27000.5"},
		{"27000.74", exchange.Sell, "27001"},
		{"27000.5", exchange.Buy, "27000.5"},
		{"27000.5", exchange.Sell, "27000.5"},
		// 0.1 + 0.2 is 0.30000000000000004 in float; the decimal path never shows it.
		{"0.30000000000000004", exchange.Buy, "0"},
	}
	for _, tt := range tests[:4] {
		t.Run(tt.in+string(tt.side), func(t *testing.T) {
			got, err := p.RoundPrice(d(tt.in), tt.side)
			if err != nil || got.String() != tt.want {
				t.Errorf("RoundPrice(%s, %s) = %s, %v; want %s", tt.in, tt.side, got, err, tt.want)
			}
		})
	}
	if _, err := p.RoundPrice(d(tests[4].in), exchange.Buy); err == nil {
		t.Error("a price that rounds to 0 was accepted")
	}
	cents := Precision{PricePlace: 2, PriceEndStep: d("1")}
	got, err := cents.RoundPrice(decimal.NewFromFloat(0.1).Add(decimal.NewFromFloat(0.2)), exchange.Sell)
	if err != nil || got.String() != "0.3" {
		t.Errorf("0.1+0.2 rounds to %s, %v; want 0.3", got, err)
	}
	if _, err := cents.RoundPrice(d("-1"), exchange.Buy); err == nil {
		t.Error("negative price accepted")
	}
}
