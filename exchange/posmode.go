package exchange

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ModeSource is what PositionModes reads: the accounts list, the contracts
// and the single account. *Client and the simulator's accounts satisfy it.
type ModeSource interface {
	Accounts(ctx context.Context, req AccountsRequest) ([]Account, error)
	Contracts(ctx context.Context, req ContractsRequest) ([]Contract, error)
	AccountPositionMode(ctx context.Context, productType ProductType, symbol, marginCoin string) (PosMode, error)
}

// ModeError is returned by PositionModes when the mode of some product
// types could not be read; the modes of the others come with it. Callers
// that trade go on with those and refuse orders on the failed product
// types: guessing one-way or hedge would change the orders' fields.
type ModeError struct {
	// Failed holds why each product type's mode could not be read.
	Failed map[ProductType]error
}

// Error lists the failed product types with their causes, in a fixed order.
func (e *ModeError) Error() string {
	var parts []string
	for _, pt := range e.ProductTypes() {
		parts = append(parts, fmt.Sprintf("%s: %v", pt, e.Failed[pt]))
	}
	return "position mode not read for " + strings.Join(parts, "; ")
}

// Unwrap returns the causes, so that errors.Is finds a sentinel in them.
func (e *ModeError) Unwrap() []error {
	out := make([]error, 0, len(e.Failed))
	for _, pt := range e.ProductTypes() {
		out = append(out, e.Failed[pt])
	}
	return out
}

// ProductTypes lists the failed product types in ProductTypes' order.
func (e *ModeError) ProductTypes() []ProductType {
	var out []ProductType
	for _, pt := range ProductTypes() {
		if _, ok := e.Failed[pt]; ok {
			out = append(out, pt)
		}
	}
	return out
}

// PositionModes reads the position mode of every product type that has an
// account (PositionMode), each on its own: a product type whose mode
// cannot be read is left out of the map and named in a *ModeError, and the
// modes of the others are returned with it.
func PositionModes(ctx context.Context, r ModeSource) (map[ProductType]PosMode, error) {
	modes := map[ProductType]PosMode{}
	failed := map[ProductType]error{}
	for _, pt := range ProductTypes() {
		mode, err := PositionMode(ctx, r, pt)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			failed[pt] = err
			continue
		}
		if mode != "" {
			modes[pt] = mode
		}
	}
	if len(failed) > 0 {
		return modes, &ModeError{Failed: failed}
	}
	return modes, nil
}

// PositionModeOps lists the requests PositionMode makes for one product
// type on the live venue, whose accounts list names no mode: the budget of
// reading a mode again (poll.ModeBudget) is counted from it.
func PositionModeOps() []Op {
	return []Op{OpAccounts, OpContracts, OpSingleAccount}
}

// PositionMode reads the position mode of one product type. The accounts
// list carries it in older answers and recordings and is used when it
// does; the live venue's list has none (exchange notes), so the mode is
// otherwise read from the single account of the first contract of the
// product type that the account's margin coin can margin. A product type
// without accounts or contracts has no mode (""): actions that need it
// then refuse to guess.
func PositionMode(ctx context.Context, r ModeSource, pt ProductType) (PosMode, error) {
	accounts, err := r.Accounts(ctx, AccountsRequest{ProductType: pt})
	if err != nil {
		return "", fmt.Errorf("read %s accounts (position mode): %w", pt, err)
	}
	if i := slices.IndexFunc(accounts, func(a Account) bool { return a.PosMode != "" }); i >= 0 {
		return accounts[i].PosMode, nil
	}
	if len(accounts) == 0 {
		return "", nil
	}
	contracts, err := r.Contracts(ctx, ContractsRequest{ProductType: pt})
	if err != nil {
		return "", fmt.Errorf("read %s contracts (position mode): %w", pt, err)
	}
	symbol, coin, ok := marginedContract(accounts, contracts)
	if !ok {
		return "", nil
	}
	mode, err := r.AccountPositionMode(ctx, pt, symbol, coin)
	if err != nil {
		return "", fmt.Errorf("read %s position mode: %w", pt, err)
	}
	return mode, nil
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
