package sim

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
)

var (
	one        = decimal.NewFromInt(1)
	ten        = decimal.NewFromInt(10)
	defaultMMR = decimal.RequireFromString("0.004")
)

// contract is a scenario contract with its numbers parsed once.
type contract struct {
	spec        exchange.Contract
	productType exchange.ProductType
	marginCoin  string
	// inverse is true for coin-margined contracts: margin, fees and P&L are
	// in the base coin.
	inverse bool
	rwa     bool
	// markSymbol names the price path of the mark price: the symbol, or
	// its mark path (MarkPathName) when the scenario has one.
	markSymbol string

	pricePlace, volumePlace int32
	priceStep               decimal.Decimal // priceEndStep in units of the last price place
	sizeStep                decimal.Decimal // sizeMultiplier
	minTradeNum             decimal.Decimal
	minTradeUSDT            decimal.Decimal
	maxOrderQty             decimal.Decimal // zero: no maximum
	maxMarketOrderQty       decimal.Decimal // zero: no maximum
	makerFee, takerFee      decimal.Decimal

	book *restingBook
	mark markAt // the price answers last computed with (see fixedKind.price)
}

func newContract(cs ContractSpec) (*contract, error) {
	c := &contract{spec: cs.Contract, productType: cs.ProductType, markSymbol: cs.Symbol}
	s := cs.Contract
	if s.SymbolStatus == "" {
		c.spec.SymbolStatus = exchange.SymbolNormal
	} else if !s.SymbolStatus.Valid() {
		return nil, fmt.Errorf("symbol_status %q is not a contract status", s.SymbolStatus)
	}
	if s.IsRwa == "" {
		c.spec.IsRwa = exchange.No
	} else if !s.IsRwa.Valid() {
		return nil, fmt.Errorf("is_rwa %q is not YES or NO", s.IsRwa)
	}
	c.rwa = c.spec.IsRwa == exchange.Yes
	nums := []struct {
		name string
		in   exchange.Num
		out  *decimal.Decimal
		def  string
	}{
		{"price_place", s.PricePlace, new(decimal.Decimal), "2"},
		{"volume_place", s.VolumePlace, new(decimal.Decimal), "2"},
		{"price_end_step", s.PriceEndStep, &c.priceStep, "1"},
		{"size_multiplier", s.SizeMultiplier, &c.sizeStep, ""},
		{"min_trade_num", s.MinTradeNum, &c.minTradeNum, ""},
		{"min_trade_usdt", s.MinTradeUSDT, &c.minTradeUSDT, "0"},
		{"max_order_qty", s.MaxOrderQty, &c.maxOrderQty, "0"},
		{"max_market_order_qty", s.MaxMarketOrderQty, &c.maxMarketOrderQty, "0"},
		{"maker_fee_rate", s.MakerFeeRate, &c.makerFee, "0.0002"},
		{"taker_fee_rate", s.TakerFeeRate, &c.takerFee, "0.0006"},
	}
	var place, vol decimal.Decimal
	nums[0].out, nums[1].out = &place, &vol
	for _, n := range nums {
		v := n.in
		if v == "" {
			v = exchange.Num(n.def)
		}
		if v == "" {
			continue
		}
		d, err := v.Decimal()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
		if d.IsNegative() {
			return nil, fmt.Errorf("%s must not be negative", n.name)
		}
		*n.out = d
	}
	if !place.IsInteger() || !vol.IsInteger() || place.GreaterThan(decimal.NewFromInt(18)) || vol.GreaterThan(decimal.NewFromInt(18)) {
		return nil, fmt.Errorf("price_place and volume_place must be whole numbers from 0 to 18")
	}
	c.pricePlace, c.volumePlace = int32(place.IntPart()), int32(vol.IntPart())
	if !c.priceStep.IsPositive() || !c.priceStep.IsInteger() {
		return nil, fmt.Errorf("price_end_step must be a positive whole number")
	}
	unit := decimal.New(1, -c.volumePlace)
	if c.sizeStep.IsZero() {
		c.sizeStep = unit
	}
	if c.minTradeNum.IsZero() {
		c.minTradeNum = c.sizeStep
	}
	c.spec.PricePlace = exchange.Num(place.String())
	c.spec.VolumePlace = exchange.Num(vol.String())
	for _, f := range []struct {
		dst *exchange.Num
		v   decimal.Decimal
	}{
		{&c.spec.PriceEndStep, c.priceStep}, {&c.spec.SizeMultiplier, c.sizeStep},
		{&c.spec.MinTradeNum, c.minTradeNum}, {&c.spec.MinTradeUSDT, c.minTradeUSDT},
		{&c.spec.MaxOrderQty, c.maxOrderQty}, {&c.spec.MaxMarketOrderQty, c.maxMarketOrderQty},
		{&c.spec.MakerFeeRate, c.makerFee}, {&c.spec.TakerFeeRate, c.takerFee},
	} {
		*f.dst = exchange.NumOf(f.v)
	}
	c.priceStep = c.priceStep.Mul(decimal.New(1, -c.pricePlace))
	c.spec.Symbol = cs.Symbol
	switch cs.ProductType {
	case exchange.USDTFutures:
		c.marginCoin = "USDT"
	case exchange.USDCFutures:
		c.marginCoin = "USDC"
	case exchange.COINFutures:
		c.inverse = true
		c.marginCoin = s.BaseCoin
		if c.marginCoin == "" {
			return nil, fmt.Errorf("a COIN-FUTURES contract needs base_coin (its margin coin)")
		}
	}
	// The live venue's contracts carry symbolType and supportMarginCoins
	// (exchange notes); the simulator's contracts are perpetuals margined
	// by their one margin coin unless the scenario says otherwise.
	if c.spec.SymbolType == "" {
		c.spec.SymbolType = "perpetual"
	}
	if len(c.spec.SupportMarginCoins) == 0 {
		c.spec.SupportMarginCoins = []string{c.marginCoin}
	}
	return c, nil
}

// checkPrice applies the price precision rules: at most pricePlace decimals
// (41103) and a multiple of priceEndStep in the last place (45115).
func (c *contract) checkPrice(p decimal.Decimal) (code, msg string) {
	if !p.Equal(p.Truncate(c.pricePlace)) {
		return exchange.CodePrecisionPrice, fmt.Sprintf("price %s has more than %d decimal places", p, c.pricePlace)
	}
	if !p.Mod(c.priceStep).IsZero() {
		return exchange.CodePriceStep, fmt.Sprintf("price %s is not a multiple of %s", p, c.priceStep)
	}
	return "", ""
}

// checkSize applies the size precision rules: at most volumePlace decimals
// and a multiple of sizeMultiplier (both 40808).
func (c *contract) checkSize(s decimal.Decimal) (code, msg string) {
	if !s.Equal(s.Truncate(c.volumePlace)) {
		return exchange.CodePrecisionSize, fmt.Sprintf("size %s has more than %d decimal places", s, c.volumePlace)
	}
	if !s.Mod(c.sizeStep).IsZero() {
		return exchange.CodePrecisionSize, fmt.Sprintf("size %s is not a multiple of %s", s, c.sizeStep)
	}
	return "", ""
}

// value is the notional of size at price in the margin coin: quote for
// linear contracts, base coin for coin-margined ones.
func (c *contract) value(size, price decimal.Decimal) decimal.Decimal {
	if c.inverse {
		return size
	}
	return size.Mul(price)
}

// pnl is the profit of closing size of a position opened at avg at price;
// long is the position's direction (see pnlOf).
func (c *contract) pnl(long bool, size, avg, price decimal.Decimal) decimal.Decimal {
	return pnlOf(c.inverse, long, size, avg, price)
}
