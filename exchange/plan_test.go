package exchange

import (
	"errors"
	"testing"
	"time"
)

// TestPlanRequestsValidate checks the rules of the plan-order requests
// before anything is sent: each case names the field its problem is on.
func TestPlanRequestsValidate(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	tpsl := func(mod func(*PlaceTPSLOrderRequest)) PlaceTPSLOrderRequest {
		r := PlaceTPSLOrderRequest{MarginCoin: "USDT", ProductType: USDTFutures, Symbol: "TSLAUSDT", PlanType: PlanPosLoss,
			TriggerPrice: "240", TriggerType: TriggerMarkPrice, HoldSide: "long", ClientOID: "tr-p-1-0"}
		mod(&r)
		return r
	}
	plan := func(mod func(*PlacePlanOrderRequest)) PlacePlanOrderRequest {
		r := PlacePlanOrderRequest{PlanType: PlanNormal, Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginMode: Crossed, MarginCoin: "USDT",
			Size: "1", TriggerPrice: "260", TriggerType: TriggerFillPrice, Side: Buy, OrderType: Market, ClientOID: "tr-t-1-0"}
		mod(&r)
		return r
	}
	tests := []struct {
		name  string
		req   interface{ Validate(time.Time) error }
		field string // "" for a valid request
	}{
		{"stop-loss of the whole position", tpsl(func(*PlaceTPSLOrderRequest) {}), ""},
		{"one-way hold side", tpsl(func(r *PlaceTPSLOrderRequest) { r.HoldSide = "buy" }), ""},
		{"unknown hold side", tpsl(func(r *PlaceTPSLOrderRequest) { r.HoldSide = "net" }), "holdSide"},
		{"whole position takes no size", tpsl(func(r *PlaceTPSLOrderRequest) { r.Size = "1" }), "size"},
		{"part needs a size", tpsl(func(r *PlaceTPSLOrderRequest) { r.PlanType = PlanLoss }), "size"},
		{"trailing stop", tpsl(func(r *PlaceTPSLOrderRequest) { r.PlanType, r.Size, r.RangeRate = PlanMoving, "1", "2" }), ""},
		{"trailing stop needs a ratio", tpsl(func(r *PlaceTPSLOrderRequest) { r.PlanType, r.Size = PlanMoving, "1" }), "rangeRate"},
		{"trailing ratio above 10", tpsl(func(r *PlaceTPSLOrderRequest) { r.PlanType, r.Size, r.RangeRate = PlanMoving, "1", "10.5" }), "rangeRate"},
		{"trailing stop executes at market", tpsl(func(r *PlaceTPSLOrderRequest) {
			r.PlanType, r.Size, r.RangeRate, r.ExecutePrice = PlanMoving, "1", "2", "230"
		}), "executePrice"},
		{"ratio without a trail", tpsl(func(r *PlaceTPSLOrderRequest) { r.RangeRate = "2" }), "rangeRate"},
		{"trigger type of the v3 account", tpsl(func(r *PlaceTPSLOrderRequest) { r.TriggerType = "mark" }), "triggerType"},
		{"trigger order is not a tpsl type", tpsl(func(r *PlaceTPSLOrderRequest) { r.PlanType = PlanNormal }), "planType"},
		{"market trigger order", plan(func(*PlacePlanOrderRequest) {}), ""},
		{"limit trigger order needs a price", plan(func(r *PlacePlanOrderRequest) { r.OrderType = Limit }), "price"},
		{"trailing trigger", plan(func(r *PlacePlanOrderRequest) { r.PlanType, r.CallbackRatio = PlanTrack, "1.5" }), ""},
		{"trailing trigger takes no price", plan(func(r *PlacePlanOrderRequest) { r.PlanType, r.CallbackRatio, r.Price = PlanTrack, "1.5", "261" }), "price"},
		{"tradeSide in one-way mode", plan(func(r *PlacePlanOrderRequest) { r.TradeSide, r.Mode = Open, OneWayMode }), "tradeSide"},
		{"cancel every stop-loss of a symbol", CancelPlanOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, PlanType: PlanPosLoss}, ""},
		{"cancel by id needs the symbol", CancelPlanOrderRequest{ProductType: USDTFutures, OrderIDList: []OrderRef{{OrderID: "1"}}}, "symbol"},
		{"list of take-profits and stop-losses", PlanOrdersRequest{ProductType: USDTFutures, PlanType: PlanProfitLoss}, ""},
		{"list needs a plan type", PlanOrdersRequest{ProductType: USDTFutures}, "planType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate(now)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("valid request refused: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a problem with %s", err, tt.field)
			}
			if ve.Field != tt.field {
				t.Errorf("problem with %s (%v), want %s", ve.Field, err, tt.field)
			}
		})
	}
}

// TestPlanOrderAsStrategyOrder checks how rules see each plan type among
// the strategy orders: the type, the side of the position and the prices.
func TestPlanOrderAsStrategyOrder(t *testing.T) {
	tests := []struct {
		name string
		in   PlanOrder
		typ  StrategyType
		pos  HoldSide
		want func(StrategyOrder) bool
	}{
		{"position stop-loss of a hedge long", PlanOrder{PlanType: PlanPosLoss, TriggerPrice: "240", TriggerType: TriggerMarkPrice, PosSide: PosLong, Side: Sell},
			StrategyTPSL, Long, func(s StrategyOrder) bool {
				return s.StopLoss == "240" && s.SLTriggerBy == TriggerMark && s.SLOrderType == Market
			}},
		{"one-way take-profit of a short at a limit", PlanOrder{PlanType: PlanProfit, TriggerPrice: "200", TriggerType: TriggerFillPrice, PosSide: PosNet, Side: Buy, ExecutePrice: "199.5", Size: "1"},
			StrategyTPSL, Short, func(s StrategyOrder) bool {
				return s.TakeProfit == "200" && s.TPTriggerBy == TriggerMarket && s.TPOrderType == Limit && s.TPLimitPrice == "199.5" && s.Qty == "1"
			}},
		{"trailing stop: percent as a ratio", PlanOrder{PlanType: PlanMoving, TriggerPrice: "250", CallbackRatio: "2", PosSide: PosLong},
			StrategyTrailingStop, Long, func(s StrategyOrder) bool {
				return s.TrailingStopParams[0].TrailVariance == "0.02" && s.TrailingStopParams[0].ActivationPrice == "250"
			}},
		{"trigger order at market, executePrice 0", PlanOrder{PlanType: PlanNormal, TriggerPrice: "260", ExecutePrice: "0", Side: Buy},
			StrategyTrigger, "", func(s StrategyOrder) bool {
				return s.TriggerPrice == "260" && s.TriggerOrderType == Market && s.TriggerOrderPrice == ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.StrategyOrder(USDTFutures)
			if got.Type() != tt.typ || got.PosSide != tt.pos || got.Category != USDTFutures || !tt.want(got) {
				t.Errorf("got %+v (type %s), want type %s, position %q", got, got.Type(), tt.typ, tt.pos)
			}
		})
	}
}
