package exchange

import "testing"

func TestCloseKind(t *testing.T) {
	cases := map[OrderSource]string{
		OSNormal: "", OSMarket: "", OSReverse: "", OSModifyOrderLimit: "", "": "",
		OSPosLossMarket: "stop-loss", OSLossLimit: "stop-loss", OSTraderLoss: "stop-loss",
		OSPosProfitMarket: "take-profit", OSProfitLimit: "take-profit", OSProfitChase: "take-profit",
		OSMoveMarket: "trailing-stop", OSTrackingLimit: "trailing-stop",
		OSLiquidation: "liquidation", OSMarketRisk: "liquidation", OSReduceOffset: "liquidation",
		OSPlanMarket: "trigger", OSPlanLimit: "trigger",
		OSDeliveryCloseLong: "delivery", OSStrategyGridMiddle: "strategy_grid_middle",
	}
	for in, want := range cases {
		t.Run(string(in), func(t *testing.T) {
			if got := in.CloseKind(); got != want {
				t.Errorf("%q.CloseKind() = %q, want %q", in, got, want)
			}
		})
	}
}
