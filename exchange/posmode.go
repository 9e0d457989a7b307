package exchange

import (
	"context"
	"fmt"
	"slices"
)

// ModeSource is what PositionModes reads: the accounts list, the contracts
// and the single account. *Client and the simulator's accounts satisfy it.
type ModeSource interface {
	Accounts(ctx context.Context, req AccountsRequest) ([]Account, error)
	Contracts(ctx context.Context, req ContractsRequest) ([]Contract, error)
	AccountPositionMode(ctx context.Context, productType ProductType, symbol, marginCoin string) (PosMode, error)
}

// PositionModes reads the position mode of every product type that has an
// account. The accounts list carries it in older answers and recordings and
// is used when it does; the live venue's list has none (exchange notes), so
// the mode is otherwise read from the single account of the first contract
// of the product type that the account's margin coin can margin. A product
// type without accounts or contracts is left out: actions that need its
// mode then refuse to guess.
func PositionModes(ctx context.Context, r ModeSource) (map[ProductType]PosMode, error) {
	modes := map[ProductType]PosMode{}
	for _, pt := range ProductTypes() {
		accounts, err := r.Accounts(ctx, AccountsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("read %s accounts (position mode): %w", pt, err)
		}
		if i := slices.IndexFunc(accounts, func(a Account) bool { return a.PosMode != "" }); i >= 0 {
			modes[pt] = accounts[i].PosMode
			continue
		}
		if len(accounts) == 0 {
			continue
		}
		contracts, err := r.Contracts(ctx, ContractsRequest{ProductType: pt})
		if err != nil {
			return nil, fmt.Errorf("read %s contracts (position mode): %w", pt, err)
		}
		symbol, coin, ok := marginedContract(accounts, contracts)
		if !ok {
			continue
		}
		mode, err := r.AccountPositionMode(ctx, pt, symbol, coin)
		if err != nil {
			return nil, fmt.Errorf("read %s position mode: %w", pt, err)
		}
		modes[pt] = mode
	}
	return modes, nil
}

// marginedContract returns the first contract, with one of the accounts'
// margin coins, that the coin can margin: one of its supportMarginCoins, or
// failing that its quote coin (USDT-, USDC-margined) or base coin
// (coin-margined).
func marginedContract(accounts []Account, contracts []Contract) (symbol, coin string, ok bool) {
	for _, a := range accounts {
		for _, c := range contracts {
			if slices.Contains(c.SupportMarginCoins, a.MarginCoin) ||
				(len(c.SupportMarginCoins) == 0 && (c.QuoteCoin == a.MarginCoin || c.BaseCoin == a.MarginCoin)) {
				return c.Symbol, a.MarginCoin, true
			}
		}
	}
	return "", "", false
}
