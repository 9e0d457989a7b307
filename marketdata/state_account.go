package marketdata

import (
	"fmt"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Balance is the futures account of one margin coin of a product type.
// Amounts are in the margin coin.
type Balance struct {
	MarginCoin           string  `expr:"margin_coin" json:"margin_coin"`
	ProductType          string  `expr:"product_type" json:"product_type"`
	Available            float64 `expr:"available" json:"available"`
	Locked               float64 `expr:"locked" json:"locked"`
	Equity               float64 `expr:"equity" json:"equity"`
	UnrealizedPnL        float64 `expr:"unrealized_pnl" json:"unrealized_pnl"`
	CrossedMaxAvailable  float64 `expr:"crossed_max_available" json:"crossed_max_available"`
	IsolatedMaxAvailable float64 `expr:"isolated_max_available" json:"isolated_max_available"`
	PositionMode         string  `expr:"position_mode" json:"position_mode"`
}

// BalancesInput is one fetch of the accounts of a product type.
type BalancesInput struct {
	ProductType exchange.ProductType
	Accounts    []exchange.Account
	At          time.Time
}

func newBalance(w *exchange.Account, pt exchange.ProductType) (*Balance, error) {
	var p numParser
	b := &Balance{
		MarginCoin: w.MarginCoin, ProductType: string(pt),
		Available: p.num("available", w.Available), Locked: p.num("locked", w.Locked),
		Equity: p.num("accountEquity", w.AccountEquity), UnrealizedPnL: p.num("unrealizedPL", w.UnrealizedPL),
		CrossedMaxAvailable:  p.num("crossedMaxAvailable", w.CrossedMaxAvailable),
		IsolatedMaxAvailable: p.num("isolatedMaxAvailable", w.IsolatedMaxAvailable),
		PositionMode:         string(w.PosMode),
	}
	if p.err != nil {
		return nil, fmt.Errorf("account %s %s: %w", pt, w.MarginCoin, p.err)
	}
	return b, nil
}

// Balance returns the account of margin coin (USDT, USDC, BTC...). A coin is
// the margin coin of one product type in practice; if several product types
// hold it, the first fetched wins.
func (s *State) Balance(coin string) (*Balance, error) {
	for _, b := range s.balances {
		if b.MarginCoin == coin {
			return b, nil
		}
	}
	if !s.Fetched(PartBalances) {
		return nil, missing("balance "+coin, "no accounts were fetched")
	}
	return nil, missing("balance "+coin, "no fetched account has this margin coin")
}

// PositionMode returns one_way_mode or hedge_mode for a product type.
func (s *State) PositionMode(pt exchange.ProductType) (string, error) {
	if m, ok := s.posModes[pt]; ok {
		return m, nil
	}
	return "", missing("position mode of "+string(pt), "the accounts of this product type were not fetched")
}

// DiscountTier is one discount tier of a coin: from StartValue (in U,
// inclusive) up to the next tier's start; Rate is the discount rate as the
// exchange gives it.
type DiscountTier struct {
	StartValue float64 `expr:"start_value" json:"start_value"`
	Rate       float64 `expr:"rate" json:"rate"`
}

// DiscountTiers returns the tiers of coin, by ascending start value.
func (s *State) DiscountTiers(coin string) ([]*DiscountTier, error) {
	if ts, ok := s.discounts[coin]; ok {
		return ts, nil
	}
	if !s.Fetched(PartDiscount) {
		return nil, missing("discount tiers of "+coin, "the discount tiers were not fetched")
	}
	return nil, missing("discount tiers of "+coin, "the exchange lists no tiers for this coin")
}

// DiscountRate returns the rate of the tier of coin that contains value (in U).
// A value below the first tier has no rate.
func (s *State) DiscountRate(coin string, value float64) (float64, error) {
	ts, err := s.DiscountTiers(coin)
	if err != nil {
		return 0, err
	}
	rate, found := 0.0, false
	for _, t := range ts {
		if value < t.StartValue {
			break
		}
		rate, found = t.Rate, true
	}
	if !found {
		return 0, missing(fmt.Sprintf("discount rate of %s at %g U", coin, value), "the value is below the first tier")
	}
	return rate, nil
}

// SpotRecord is one spot financial record. Amount, Fee and Balance are in
// Coin; Time is when it was booked.
type SpotRecord struct {
	ID         string    `expr:"id" json:"id"`
	Coin       string    `expr:"coin" json:"coin"`
	Type       string    `expr:"type" json:"type"`
	Amount     float64   `expr:"amount" json:"amount"`
	Fee        float64   `expr:"fee" json:"fee"`
	Balance    float64   `expr:"balance" json:"balance"`
	BizOrderID string    `expr:"biz_order_id" json:"biz_order_id"`
	Time       time.Time `expr:"time" json:"time"`
	AgeSeconds float64   `expr:"age_seconds" json:"age_seconds"`
}

func newSpotRecord(w *exchange.SpotRecord, now time.Time) (*SpotRecord, error) {
	var p numParser
	r := &SpotRecord{
		ID: w.ID, Coin: w.Coin, Type: string(w.SpotTaxType),
		Amount: p.num("amount", w.Amount), Fee: p.num("fee", w.Fee), Balance: p.num("balance", w.Balance),
		BizOrderID: w.BizOrderID, Time: w.TS.Time(),
	}
	if p.err != nil {
		return nil, fmt.Errorf("spot record %s: %w", w.ID, p.err)
	}
	if !r.Time.IsZero() {
		r.AgeSeconds = now.Sub(r.Time).Seconds()
	}
	return r, nil
}

// SpotRecords returns the fetched spot records, newest first.
func (s *State) SpotRecords() ([]*SpotRecord, error) {
	if !s.Fetched(PartSpotRecords) {
		return nil, missing("spot records", "the spot records were not fetched")
	}
	return s.spotRecords, nil
}
