package actions

import (
	"testing"

	"github.com/tickrules/tickrules/exchange"
)

func TestMap(t *testing.T) {
	tests := []struct {
		name  string
		in    Intent
		mode  exchange.PosMode
		want  Mapped
		error bool
	}{
		{"one-way open long", Intent{Dir: exchange.Long}, exchange.OneWayMode, Mapped{Side: exchange.Buy}, false},
		{"one-way open short", Intent{Dir: exchange.Short}, exchange.OneWayMode, Mapped{Side: exchange.Sell}, false},
		{"one-way close long sells reduce-only", Intent{Close: true, Dir: exchange.Long}, exchange.OneWayMode, Mapped{Side: exchange.Sell, ReduceOnly: exchange.Yes}, false},
		{"one-way close short buys reduce-only", Intent{Close: true, Dir: exchange.Short}, exchange.OneWayMode, Mapped{Side: exchange.Buy, ReduceOnly: exchange.Yes}, false},
		{"hedge open long", Intent{Dir: exchange.Long}, exchange.HedgeMode, Mapped{Side: exchange.Buy, TradeSide: exchange.Open}, false},
		{"hedge open short", Intent{Dir: exchange.Short}, exchange.HedgeMode, Mapped{Side: exchange.Sell, TradeSide: exchange.Open}, false},
		{"hedge close long names the long side", Intent{Close: true, Dir: exchange.Long}, exchange.HedgeMode, Mapped{Side: exchange.Buy, TradeSide: exchange.Close}, false},
		{"hedge close short names the short side", Intent{Close: true, Dir: exchange.Short}, exchange.HedgeMode, Mapped{Side: exchange.Sell, TradeSide: exchange.Close}, false},
		{"unknown mode", Intent{Dir: exchange.Long}, "", Mapped{}, true},
		{"unknown direction", Intent{Dir: "up"}, exchange.HedgeMode, Mapped{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Map(tt.in, tt.mode)
			if (err != nil) != tt.error {
				t.Fatalf("err = %v, want error %v", err, tt.error)
			}
			if got != tt.want {
				t.Errorf("Map = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestReverseSide(t *testing.T) {
	tests := []struct {
		dir       exchange.HoldSide
		mode      exchange.PosMode
		side      exchange.Side
		tradeSide exchange.TradeSide
	}{
		{exchange.Long, exchange.HedgeMode, exchange.Buy, exchange.Open},
		{exchange.Short, exchange.HedgeMode, exchange.Sell, exchange.Open},
		{exchange.Long, exchange.OneWayMode, exchange.Buy, ""},
		{exchange.Short, exchange.OneWayMode, exchange.Sell, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.dir)+"/"+string(tt.mode), func(t *testing.T) {
			side, ts, err := ReverseSide(tt.dir, tt.mode)
			if err != nil || side != tt.side || ts != tt.tradeSide {
				t.Errorf("ReverseSide = %s %s %v, want %s %s", side, ts, err, tt.side, tt.tradeSide)
			}
		})
	}
	if _, _, err := ReverseSide("net", exchange.HedgeMode); err == nil {
		t.Error("ReverseSide accepted direction net")
	}
}
