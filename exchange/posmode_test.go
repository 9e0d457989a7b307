package exchange

import (
	"context"
	"errors"
	"fmt"
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

// opsStub is modeStub counting the operations PositionMode calls.
type opsStub struct {
	modeStub
	ops []Op
}

func (o *opsStub) Accounts(ctx context.Context, req AccountsRequest) ([]Account, error) {
	o.ops = append(o.ops, OpAccounts)
	return o.modeStub.Accounts(ctx, req)
}
func (o *opsStub) Contracts(ctx context.Context, req ContractsRequest) ([]Contract, error) {
	o.ops = append(o.ops, OpContracts)
	return o.modeStub.Contracts(ctx, req)
}
func (o *opsStub) AccountPositionMode(ctx context.Context, pt ProductType, symbol, coin string) (PosMode, error) {
	o.ops = append(o.ops, OpSingleAccount)
	return o.modeStub.AccountPositionMode(ctx, pt, symbol, coin)
}

// TestPositionModeOps shows PositionModeOps lists the requests one
// PositionMode makes against a venue whose accounts list names no mode:
// the polling budget counts the engine's reads from it.
func TestPositionModeOps(t *testing.T) {
	o := &opsStub{}
	if _, err := PositionMode(context.Background(), o, USDTFutures); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(o.ops), fmt.Sprint(PositionModeOps()); got != want {
		t.Errorf("PositionMode made %s, PositionModeOps says %s", got, want)
	}
}

// TestWrongPositionMode lists the refusals that mean the order does not
// fit the account's position mode.
func TestWrongPositionMode(t *testing.T) {
	tests := []struct {
		code          string
		sentTradeSide bool
		want          bool
	}{
		{CodeTradeSideOneWay, true, true},
		{CodeTradeSideOneWay, false, true},
		{CodeParamEmpty, false, true}, // a one-way order in hedge mode (the simulator)
		{CodeParamEmpty, true, false}, // a hedge order: some other field is missing
		{CodeParamCheck, false, true},
		{CodeParamCheck, true, false},
		{CodeParamVerify, false, false},
		{CodeBalanceNotEnough, false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := WrongPositionMode(tt.code, tt.sentTradeSide); got != tt.want {
			t.Errorf("WrongPositionMode(%q, %v) = %v, want %v", tt.code, tt.sentTradeSide, got, tt.want)
		}
	}
}
