package exchange

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// modeStub answers one account per product type and fails the single
// account read of the product types in fail.
type modeStub struct {
	fail map[ProductType]error
}

func (m modeStub) Accounts(_ context.Context, req AccountsRequest) ([]Account, error) {
	return []Account{{MarginCoin: "USDT"}}, nil
}
func (m modeStub) Contracts(_ context.Context, req ContractsRequest) ([]Contract, error) {
	return []Contract{{Symbol: "X" + string(req.ProductType), QuoteCoin: "USDT"}}, nil
}
func (m modeStub) AccountPositionMode(_ context.Context, pt ProductType, _, _ string) (PosMode, error) {
	if err := m.fail[pt]; err != nil {
		return "", err
	}
	if pt == USDCFutures {
		return HedgeMode, nil
	}
	return OneWayMode, nil
}

// TestPositionModesPerProductType shows a product type whose mode cannot
// be read does not take the others down: their modes come back with a
// *ModeError naming only the failed ones, and their causes.
func TestPositionModesPerProductType(t *testing.T) {
	down := errors.New("connection reset")
	tests := []struct {
		name       string
		fail       map[ProductType]error
		wantModes  map[ProductType]PosMode
		wantFailed []ProductType
	}{
		{"all read", nil, map[ProductType]PosMode{USDTFutures: OneWayMode, COINFutures: OneWayMode, USDCFutures: HedgeMode}, nil},
		{"one fails", map[ProductType]error{COINFutures: down},
			map[ProductType]PosMode{USDTFutures: OneWayMode, USDCFutures: HedgeMode}, []ProductType{COINFutures}},
		{"all fail", map[ProductType]error{USDTFutures: down, COINFutures: down, USDCFutures: down},
			map[ProductType]PosMode{}, []ProductType{USDTFutures, COINFutures, USDCFutures}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes, err := PositionModes(context.Background(), modeStub{fail: tt.fail})
			if len(modes) != len(tt.wantModes) {
				t.Errorf("modes %v, want %v", modes, tt.wantModes)
			}
			for pt, m := range tt.wantModes {
				if modes[pt] != m {
					t.Errorf("%s: %q, want %q", pt, modes[pt], m)
				}
			}
			var me *ModeError
			if tt.wantFailed == nil {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if !errors.As(err, &me) {
				t.Fatalf("error %v, want a *ModeError", err)
			}
			got := me.ProductTypes()
			if len(got) != len(tt.wantFailed) {
				t.Fatalf("failed %v, want %v", got, tt.wantFailed)
			}
			for i := range got {
				if got[i] != tt.wantFailed[i] || !strings.Contains(err.Error(), string(got[i])) {
					t.Errorf("failed %v, want %v; error %q", got, tt.wantFailed, err)
				}
			}
			if !errors.Is(err, down) {
				t.Errorf("the cause is lost: %v", err)
			}
		})
	}
}

// TestPositionModesStopped shows a cancelled read is not reported as a
// venue failure.
func TestPositionModesStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := PositionModes(ctx, modeStub{fail: map[ProductType]error{USDTFutures: context.Canceled}})
	if !errors.Is(err, context.Canceled) || errors.As(err, new(*ModeError)) {
		t.Fatalf("error %v, want context.Canceled alone", err)
	}
}
