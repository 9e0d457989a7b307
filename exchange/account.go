package exchange

import "cmp"

// This file holds the wire types of the account and record operations: coin
// discount tiers and spot financial records from the spec, and positions,
// contracts, tickers and accounts from the exchange notes.

// DiscountRateRequest is the query of GET /api/v3/account/eligible-discount-rate.
type DiscountRateRequest struct {
	Coin string `json:"coin,omitempty"`
}

// DiscountTier is one tier: it starts at TierStartValue (in U) and ends where
// the next tier starts; the last tier is open-ended.
type DiscountTier struct {
	TierStartValue Num `json:"tierStartValue"`
	DiscountRate   Num `json:"discountRate"`
}

// DiscountCoin is the list of discount tiers of one coin.
type DiscountCoin struct {
	Coin string         `json:"coin"`
	List []DiscountTier `json:"list"`
}

// SpotRecordRequest is the query of GET /api/v2/tax/spot-record. Both times are
// required and at most 30 days apart.
type SpotRecordRequest struct {
	Coin       string `json:"coin,omitempty"`
	StartTime  Millis `json:"startTime"`
	EndTime    Millis `json:"endTime"`
	Limit      int    `json:"limit,omitempty"`
	IDLessThan string `json:"idLessThan,omitempty"`
}

// SpotRecord is one spot financial record.
type SpotRecord struct {
	ID          string      `json:"id"`
	Coin        string      `json:"coin"`
	SpotTaxType SpotTaxType `json:"spotTaxType"`
	Amount      Num         `json:"amount"`
	Fee         Num         `json:"fee"`
	Balance     Num         `json:"balance"`
	BizOrderID  string      `json:"bizOrderId"`
	TS          Millis      `json:"ts"`
}

// AllPositionsRequest is the query of GET /api/v2/mix/position/all-position.
type AllPositionsRequest struct {
	ProductType ProductType `json:"productType"`
	MarginCoin  string      `json:"marginCoin,omitempty"`
}

// SinglePositionRequest is the query of GET /api/v2/mix/position/single-position.
type SinglePositionRequest struct {
	ProductType ProductType `json:"productType"`
	Symbol      string      `json:"symbol"`
	MarginCoin  string      `json:"marginCoin"`
}

// Position is one open position. In one-way mode HoldSide gives the direction
// of the net position.
type Position struct {
	Symbol           string     `json:"symbol"`
	MarginCoin       string     `json:"marginCoin"`
	HoldSide         HoldSide   `json:"holdSide"`
	Total            Num        `json:"total"`
	Available        Num        `json:"available"`
	Locked           Num        `json:"locked"`
	OpenPriceAvg     Num        `json:"openPriceAvg"`
	MarkPrice        Num        `json:"markPrice"`
	LiquidationPrice Num        `json:"liquidationPrice"`
	Leverage         Num        `json:"leverage"`
	MarginMode       MarginMode `json:"marginMode"`
	PosMode          PosMode    `json:"posMode"`
	UnrealizedPL     Num        `json:"unrealizedPL"`
	AchievedProfits  Num        `json:"achievedProfits"`
	MarginSize       Num        `json:"marginSize"`
	BreakEvenPrice   Num        `json:"breakEvenPrice"`
	CTime            Millis     `json:"cTime"`
	UTime            Millis     `json:"uTime"`
}

// ContractsRequest is the query of GET /api/v2/mix/market/contracts.
type ContractsRequest struct {
	ProductType ProductType `json:"productType"`
	Symbol      string      `json:"symbol,omitempty"`
}

// Contract is the trading specification of one futures contract: precision
// (pricePlace decimals with prices a multiple of priceEndStep in the last
// place; volumePlace decimals with sizes a multiple of sizeMultiplier),
// minimums, maximums, fees and status.
type Contract struct {
	Symbol            string       `json:"symbol"`
	BaseCoin          string       `json:"baseCoin"`
	QuoteCoin         string       `json:"quoteCoin"`
	PricePlace        Num          `json:"pricePlace"`
	VolumePlace       Num          `json:"volumePlace"`
	PriceEndStep      Num          `json:"priceEndStep"`
	SizeMultiplier    Num          `json:"sizeMultiplier"`
	MinTradeNum       Num          `json:"minTradeNum"`
	MinTradeUSDT      Num          `json:"minTradeUSDT"`
	MaxOrderQty       Num          `json:"maxOrderQty"`
	MaxMarketOrderQty Num          `json:"maxMarketOrderQty"`
	MakerFeeRate      Num          `json:"makerFeeRate"`
	TakerFeeRate      Num          `json:"takerFeeRate"`
	SymbolStatus      SymbolStatus `json:"symbolStatus"`
	IsRwa             YesNo        `json:"isRwa"`
	// SymbolType is perpetual or delivery, and SupportMarginCoins the coins
	// that can margin the contract: the live venue sends both (exchange
	// notes) and public clients such as ccxt need them to see a swap.
	SymbolType         string   `json:"symbolType,omitempty"`
	SupportMarginCoins []string `json:"supportMarginCoins,omitempty"`
}

// TickerRequest is the query of GET /api/v2/mix/market/ticker.
type TickerRequest struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
}

// Ticker is the top of book and reference prices of one contract.
type Ticker struct {
	Symbol      string `json:"symbol"`
	LastPr      Num    `json:"lastPr"`
	BidPr       Num    `json:"bidPr"`
	AskPr       Num    `json:"askPr"`
	BidSz       Num    `json:"bidSz"`
	AskSz       Num    `json:"askSz"`
	MarkPrice   Num    `json:"markPrice"`
	IndexPrice  Num    `json:"indexPrice"`
	FundingRate Num    `json:"fundingRate"`
	// Change24h is the price change over 24 hours as a fraction of the
	// price 24 hours ago (0.01 is 1%), as the venue's ticker gives it.
	Change24h Num    `json:"change24h"`
	TS        Millis `json:"ts"`
}

// AccountsRequest is the query of GET /api/v2/mix/account/accounts.
type AccountsRequest struct {
	ProductType ProductType `json:"productType"`
}

// Account is the balance of one margin coin of a product type, an item of
// the accounts list. The live venue's list carries no posMode (read it with
// SingleAccount or from position records); PosMode is kept so that an answer
// that has it still decodes, and is empty on the live venue and the
// simulator. The union fields are the multi-asset mode's; the venue's docs
// spell the first one unionTotalMagin (so it is sent), and the decoder also
// takes unionTotalMargin. The venue's doc example writes "111,1" there, so
// these stay strings until used. The multi-asset assetList is not decoded:
// Account stays comparable, which the pollers rely on to spot a change.
type Account struct {
	MarginCoin           string  `json:"marginCoin"`
	Available            Num     `json:"available"`
	Locked               Num     `json:"locked"`
	AccountEquity        Num     `json:"accountEquity"`
	UnrealizedPL         Num     `json:"unrealizedPL"`
	CrossedMaxAvailable  Num     `json:"crossedMaxAvailable"`
	IsolatedMaxAvailable Num     `json:"isolatedMaxAvailable"`
	MaxTransferOut       Num     `json:"maxTransferOut"`
	USDTEquity           Num     `json:"usdtEquity"`
	BTCEquity            Num     `json:"btcEquity"`
	CrossedRiskRate      Num     `json:"crossedRiskRate"`
	Coupon               Num     `json:"coupon"`
	UnionTotalMargin     Num     `json:"unionTotalMagin"`
	UnionTotalMarginAlt  Num     `json:"unionTotalMargin,omitempty"`
	UnionAvailable       Num     `json:"unionAvailable"`
	UnionMM              Num     `json:"unionMm"`
	IsolatedMargin       Num     `json:"isolatedMargin"`
	CrossedMargin        Num     `json:"crossedMargin"`
	CrossedUnrealizedPL  Num     `json:"crossedUnrealizedPL"`
	IsolatedUnrealizedPL Num     `json:"isolatedUnrealizedPL"`
	AssetMode            string  `json:"assetMode"`
	PosMode              PosMode `json:"posMode,omitempty"`
}

// UnionTotal returns the union total margin under either spelling.
func (a Account) UnionTotal() Num { return cmp.Or(a.UnionTotalMargin, a.UnionTotalMarginAlt) }

// SingleAccountRequest is the query of GET /api/v2/mix/account/account.
// The venue requires all three fields.
type SingleAccountRequest struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	MarginCoin  string      `json:"marginCoin"`
}

// SingleAccount is the account of one margin coin as seen from one symbol:
// the balances, the symbol's leverage and margin mode, and the product
// type's position mode. The venue's answers write the leverages as strings
// in one doc example and as bare numbers in another; Num takes both.
type SingleAccount struct {
	MarginCoin            string     `json:"marginCoin"`
	Locked                Num        `json:"locked"`
	Available             Num        `json:"available"`
	CrossedMaxAvailable   Num        `json:"crossedMaxAvailable"`
	IsolatedMaxAvailable  Num        `json:"isolatedMaxAvailable"`
	MaxTransferOut        Num        `json:"maxTransferOut"`
	AccountEquity         Num        `json:"accountEquity"`
	USDTEquity            Num        `json:"usdtEquity"`
	BTCEquity             Num        `json:"btcEquity"`
	CrossedRiskRate       Num        `json:"crossedRiskRate"`
	CrossedMarginLeverage Num        `json:"crossedMarginLeverage"`
	IsolatedLongLever     Num        `json:"isolatedLongLever"`
	IsolatedShortLever    Num        `json:"isolatedShortLever"`
	MarginMode            MarginMode `json:"marginMode"`
	PosMode               PosMode    `json:"posMode"`
	UnrealizedPL          Num        `json:"unrealizedPL"`
	Coupon                Num        `json:"coupon"`
	CrossedUnrealizedPL   Num        `json:"crossedUnrealizedPL"`
	IsolatedUnrealizedPL  Num        `json:"isolatedUnrealizedPL"`
	AssetMode             string     `json:"assetMode"`
}

// ServerTime is the data of GET /api/v2/public/time.
type ServerTime struct {
	ServerTime Millis `json:"serverTime"`
}
