package exchange

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
	TS          Millis `json:"ts"`
}

// AccountsRequest is the query of GET /api/v2/mix/account/accounts.
type AccountsRequest struct {
	ProductType ProductType `json:"productType"`
}

// Account is the balance of one margin coin of a product type.
type Account struct {
	MarginCoin           string  `json:"marginCoin"`
	Available            Num     `json:"available"`
	Locked               Num     `json:"locked"`
	AccountEquity        Num     `json:"accountEquity"`
	UnrealizedPL         Num     `json:"unrealizedPL"`
	CrossedMaxAvailable  Num     `json:"crossedMaxAvailable"`
	IsolatedMaxAvailable Num     `json:"isolatedMaxAvailable"`
	PosMode              PosMode `json:"posMode,omitempty"`
}
