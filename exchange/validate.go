package exchange

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file holds the client-side validation of every request: the rules the
// spec states (and the exchange notes, where the spec says "not shown"),
// checked before anything is sent. The simulator calls the same methods and
// answers with each error's Code, so the client and the simulator can never
// disagree about what is a valid request.
//
// Every Validate method returns nil or every problem it finds, each a
// *ValidationError, joined with errors.Join in a fixed order: required fields
// first, then values, then rules between fields. errors.As finds the first
// one, which is the one the simulator answers with.

// Request-size and time limits of the spec's Limits table.
const (
	MaxBatchOrders       = 50                  // orderList of batch-place-order
	MaxBatchCancel       = 50                  // orderIdList of batch-cancel-orders
	MaxPageLimit         = 100                 // limit of fills, fill-history, orders-pending, orders-history, stock-fills
	MaxSpotRecordLimit   = 500                 // limit of spot-record
	MaxFillHistorySpan   = 7 * 24 * time.Hour  // fill-history startTime..endTime
	MaxSpotRecordSpan    = 30 * 24 * time.Hour // spot-record startTime..endTime
	OrderHistoryMaxAge   = 90 * 24 * time.Hour // orders-history: only the last 90 days
	MaxReceiveWindow     = 60 * time.Second    // receiveWindow of cancel-all-orders
	MaxClientOIDLength   = 49                  // clientOid: fewer than 50 characters
	clientOIDPunctuation = "-+_#"
)

// ValidClientOID reports whether s may be sent as a clientOid: one to 49
// characters from [0-9a-zA-Z-+_#] (exchange notes).
func ValidClientOID(s string) bool {
	if s == "" || len(s) > MaxClientOIDLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case strings.IndexByte(clientOIDPunctuation, c) >= 0:
		default:
			return false
		}
	}
	return true
}

// problems collects the validation errors of one request.
type problems struct {
	op   Op
	errs []error
}

func (p *problems) add(field, code, rule string, args ...any) {
	if len(args) > 0 {
		rule = fmt.Sprintf(rule, args...)
	}
	p.errs = append(p.errs, &ValidationError{Op: p.op, Field: field, Rule: rule, Code: code})
}

// addEnum records the result of an enum table's check, which knows the
// allowed values but not the operation or the code.
func (p *problems) addEnum(err error) {
	if err == nil {
		return // the common case, without the allocation errors.As costs
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		ve.Op, ve.Code = p.op, CodeParamVerify
		p.errs = append(p.errs, ve)
	}
}

func (p *problems) err() error {
	switch len(p.errs) {
	case 0:
		return nil
	case 1:
		return p.errs[0]
	}
	return errors.Join(p.errs...)
}

func (p *problems) required(field, v string) {
	if v == "" {
		p.add(field, CodeParamEmpty, "required")
	}
}

// productType checks a required product type.
func (p *problems) productType(v ProductType) {
	p.required("productType", string(v))
	p.addEnum(productTypes.check("productType", v))
}

// upper checks that an optional coin or symbol is upper case.
func (p *problems) upper(field, v string) {
	if v != strings.ToUpper(v) {
		p.add(field, CodeParamVerify, "must be upper case (got %q, want %q)", v, strings.ToUpper(v))
	}
}

// clientOID checks an optional client order id the caller is creating.
func (p *problems) clientOID(field, v string) {
	if v != "" && !ValidClientOID(v) {
		p.add(field, CodeParamVerify, "must be 1 to %d characters from 0-9 a-z A-Z - + _ # (got %q)", MaxClientOIDLength, v)
	}
}

// oneOfOrderIDs checks the one-of-orderId/clientOid rule of detail, cancel
// and modify.
func (p *problems) oneOfOrderIDs(prefix, orderID, clientOID string) {
	if orderID == "" && clientOID == "" {
		p.add(prefix+"orderId", CodeOrderIDOrClientOID, "one of orderId and clientOid is required")
	}
}

// decimal checks a decimal number field. It is strict on purpose: digits with
// an optional fraction and sign, no exponent, no spaces, because that is what
// the exchange parses and what NumOf produces. allowZero allows 0 (a preset of
// 0 deletes it in modify-order); otherwise the value must be positive.
func (p *problems) decimal(field string, v Num, required, allowZero bool) {
	if v == "" {
		if required {
			p.add(field, CodeParamEmpty, "required")
		}
		return
	}
	if !plainDecimal(string(v)) {
		p.add(field, CodeParamVerify, "must be a decimal number such as 12.5 (got %q)", string(v))
		return
	}
	d := v.MustDecimal()
	switch {
	case d.IsNegative():
		p.add(field, CodeParamVerify, "must not be negative (got %s)", string(v))
	case d.IsZero() && !allowZero:
		p.add(field, CodeParamVerify, "must be greater than 0 (got %s)", string(v))
	}
}

// plainDecimal reports whether s is [-]digits[.digits].
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasDot := strings.Cut(s, ".")
	return allDigits(intPart) && (!hasDot || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// millis checks an optional time field and returns its value and whether it
// was set and valid.
func (p *problems) millis(field string, v Millis, required bool) (int64, bool) {
	if v == "" {
		if required {
			p.add(field, CodeParamEmpty, "required")
		}
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < 0 {
		p.add(field, CodeParamVerify, "must be Unix time in milliseconds (got %q)", string(v))
		return 0, false
	}
	return n, true
}

// span checks startTime and endTime: both valid, start not after end and,
// when maxSpan > 0, at most maxSpan apart. It returns the parsed times and
// whether each was set and valid.
func (p *problems) span(start, end Millis, required bool, maxSpan time.Duration) (s, e int64, okS, okE bool) {
	s, okS = p.millis("startTime", start, required)
	e, okE = p.millis("endTime", end, required)
	if okS && okE {
		switch {
		case s > e:
			p.add("endTime", CodeParamVerify, "must not be before startTime (%d > %d)", s, e)
		case maxSpan > 0 && e-s > maxSpan.Milliseconds(): // in ms: a Duration could overflow
			p.add("endTime", CodeSpanTooLarge, "at most %s after startTime (got %.3f days)", days(maxSpan), float64(e-s)/float64(24*time.Hour/time.Millisecond))
		}
	}
	return s, e, okS, okE
}

func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.String()
}

// limit checks a page size: 0 (the server's default) up to max.
func (p *problems) limit(v, max int) {
	if v < 0 || v > max {
		p.add("limit", CodeParamVerify, "must be between 1 and %d, or 0 for the default (got %d)", max, v)
	}
}

// mode checks the caller's statement of the position mode. It is not a wire
// field, so it is named by its Go name.
func (p *problems) mode(m PosMode) {
	if m != "" && !m.Valid() {
		p.add("Mode", CodeParamVerify, "must be %s or %s when set (got %q)", OneWayMode, HedgeMode, string(m))
	}
}

// modeRules checks tradeSide and reduceOnly against the position mode the
// caller stated. An empty mode means "not stated": the server decides.
func (p *problems) modeRules(prefix string, mode PosMode, tradeSide TradeSide, reduceOnly YesNo) {
	switch mode {
	case OneWayMode:
		if tradeSide != "" {
			p.add(prefix+"tradeSide", CodeTradeSideOneWay, "must be omitted in one-way mode (got %q)", string(tradeSide))
		}
	case HedgeMode:
		if tradeSide == "" {
			p.add(prefix+"tradeSide", CodeParamEmpty, "required in hedge mode (open or close)")
		}
		if reduceOnly != "" {
			p.add(prefix+"reduceOnly", CodeParamVerify, "only allowed in one-way mode; in hedge mode close with tradeSide close")
		}
	}
}

// orderFields checks the fields place-order and the items of batch-place-order share.
func (p *problems) orderFields(prefix string, size, price Num, side Side, orderType OrderType, tradeSide TradeSide,
	force Force, clientOID string, reduceOnly YesNo, stp STPMode, mode PosMode, presets ...presetField) {
	p.decimal(prefix+"size", size, true, false)
	p.required(prefix+"side", string(side))
	p.addEnum(sides.check(prefix+"side", side))
	p.required(prefix+"orderType", string(orderType))
	p.addEnum(orderTypes.check(prefix+"orderType", orderType))
	if orderType == Limit && price == "" {
		p.add(prefix+"price", CodeParamEmpty, "required when orderType is limit")
	} else {
		p.decimal(prefix+"price", price, false, false)
	}
	p.addEnum(requestTradeSides.check(prefix+"tradeSide", tradeSide))
	p.addEnum(forces.check(prefix+"force", force))
	p.clientOID(prefix+"clientOid", clientOID)
	p.addEnum(reduceOnlys.check(prefix+"reduceOnly", reduceOnly))
	p.addEnum(stpModes.check(prefix+"stpMode", stp))
	for _, f := range presets {
		p.decimal(prefix+f.name, f.value, false, false)
	}
	p.modeRules(prefix, mode, tradeSide, reduceOnly)
}

type presetField struct {
	name  string
	value Num
}

// Validate checks the place-order rules. now is unused; every request has
// the same Validate signature so callers can treat them alike.
func (r PlaceOrderRequest) Validate(now time.Time) error {
	p := problems{op: OpPlaceOrder}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.required("marginMode", string(r.MarginMode))
	p.addEnum(marginModes.check("marginMode", r.MarginMode))
	p.required("marginCoin", r.MarginCoin)
	p.upper("marginCoin", r.MarginCoin)
	p.mode(r.Mode)
	p.orderFields("", r.Size, r.Price, r.Side, r.OrderType, r.TradeSide, r.Force, r.ClientOID, r.ReduceOnly, r.STPMode, r.Mode,
		presetField{"presetStopSurplusPrice", r.PresetStopSurplusPrice},
		presetField{"presetStopLossPrice", r.PresetStopLossPrice},
		presetField{"presetStopSurplusExecutePrice", r.PresetStopSurplusExecutePrice},
		presetField{"presetStopLossExecutePrice", r.PresetStopLossExecutePrice})
	return p.err()
}

// Validate checks the click-backhand rules: tradeSide as in place-order;
// size, when sent, is positive (in one-way mode the server ignores it).
func (r ClickBackhandRequest) Validate(now time.Time) error {
	p := problems{op: OpClickBackhand}
	p.required("symbol", r.Symbol)
	p.required("marginCoin", r.MarginCoin)
	p.upper("marginCoin", r.MarginCoin)
	p.productType(r.ProductType)
	p.required("side", string(r.Side))
	p.addEnum(sides.check("side", r.Side))
	p.decimal("size", r.Size, false, false)
	p.addEnum(requestTradeSides.check("tradeSide", r.TradeSide))
	p.clientOID("clientOid", r.ClientOID)
	p.mode(r.Mode)
	p.modeRules("", r.Mode, r.TradeSide, "")
	return p.err()
}

// Validate checks the batch-place-order rules: 1 to 50 items, each checked
// like a place-order (the spec does not say which item fields are required;
// size, side and orderType are, as in place-order), and no clientOid used
// twice in one batch, which would make the outcome of the second ambiguous.
func (r BatchPlaceOrderRequest) Validate(now time.Time) error {
	p := problems{op: OpBatchPlaceOrder}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.required("marginCoin", r.MarginCoin)
	p.upper("marginCoin", r.MarginCoin)
	p.required("marginMode", string(r.MarginMode))
	p.addEnum(marginModes.check("marginMode", r.MarginMode))
	p.mode(r.Mode)
	switch n := len(r.OrderList); {
	case n == 0:
		p.add("orderList", CodeParamEmpty, "required: at least one order")
	case n > MaxBatchOrders:
		p.add("orderList", CodeBatchTooLarge, "at most %d orders (got %d)", MaxBatchOrders, n)
	}
	seen := make(map[string]int, len(r.OrderList))
	for i, o := range r.OrderList {
		prefix := fmt.Sprintf("orderList[%d].", i)
		p.orderFields(prefix, o.Size, o.Price, o.Side, o.OrderType, o.TradeSide, o.Force, o.ClientOID, o.ReduceOnly, o.STPMode, r.Mode,
			presetField{"presetStopSurplusPrice", o.PresetStopSurplusPrice},
			presetField{"presetStopLossPrice", o.PresetStopLossPrice})
		if o.ClientOID == "" {
			continue
		}
		if j, dup := seen[o.ClientOID]; dup {
			p.add(prefix+"clientOid", CodeParamVerify, "%q is also the clientOid of orderList[%d]", o.ClientOID, j)
			continue
		}
		seen[o.ClientOID] = i
	}
	return p.err()
}

// Validate checks the modify-order rules. Whether the order is a market
// order (newPrice must then not be sent) is known only to the server.
func (r ModifyOrderRequest) Validate(now time.Time) error {
	p := problems{op: OpModifyOrder}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	if r.NewClientOID == "" {
		if r.NewSize != "" || r.NewPrice != "" {
			p.add("newClientOid", CodeModifyNoNewOID, "required when newSize and newPrice change")
		} else {
			p.add("newClientOid", CodeParamEmpty, "required")
		}
	}
	p.oneOfOrderIDs("", r.OrderID, r.ClientOID)
	p.clientOID("newClientOid", r.NewClientOID)
	p.decimal("newSize", r.NewSize, false, false)
	p.decimal("newPrice", r.NewPrice, false, false)
	p.decimal("newPresetStopSurplusPrice", r.NewPresetStopSurplusPrice, false, true)
	p.decimal("newPresetStopLossPrice", r.NewPresetStopLossPrice, false, true)
	switch {
	case r.NewSize != "" && r.NewPrice == "":
		p.add("newPrice", CodeSizePriceTogether, "must be sent together with newSize")
	case r.NewPrice != "" && r.NewSize == "":
		p.add("newSize", CodeSizePriceTogether, "must be sent together with newPrice")
	case r.NewSize == "" && r.NewPresetStopSurplusPrice == "" && r.NewPresetStopLossPrice == "":
		p.add("newSize", CodeModifyUnchanged, "nothing to modify: send newSize with newPrice, or a new preset take-profit or stop-loss")
	}
	return p.err()
}

// Validate checks the cancel-order rules.
func (r CancelOrderRequest) Validate(now time.Time) error {
	p := problems{op: OpCancelOrder}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.upper("marginCoin", r.MarginCoin)
	p.oneOfOrderIDs("", r.OrderID, r.ClientOID)
	return p.err()
}

// Validate checks the batch-cancel-orders rules: at most 50 items, each
// naming an order, and symbol required when orderIdList is sent.
func (r BatchCancelOrdersRequest) Validate(now time.Time) error {
	p := problems{op: OpBatchCancelOrders}
	p.productType(r.ProductType)
	if len(r.OrderIDList) > 0 && r.Symbol == "" {
		p.add("symbol", CodeParamEmpty, "required when orderIdList is sent")
	}
	p.upper("marginCoin", r.MarginCoin)
	if n := len(r.OrderIDList); n > MaxBatchCancel {
		p.add("orderIdList", CodeBatchTooLarge, "at most %d items (got %d)", MaxBatchCancel, n)
	}
	for i, ref := range r.OrderIDList {
		p.oneOfOrderIDs(fmt.Sprintf("orderIdList[%d].", i), ref.OrderID, ref.ClientOID)
	}
	return p.err()
}

// Validate checks the close-positions rules.
func (r ClosePositionsRequest) Validate(now time.Time) error {
	p := problems{op: OpClosePositions}
	p.productType(r.ProductType)
	p.addEnum(holdSides.check("holdSide", r.HoldSide))
	return p.err()
}

// Validate checks the cancel-all-orders rules: receiveWindow at most 60 s.
func (r CancelAllOrdersRequest) Validate(now time.Time) error {
	p := problems{op: OpCancelAllOrders}
	p.productType(r.ProductType)
	p.upper("marginCoin", r.MarginCoin)
	p.millis("requestTime", r.RequestTime, false)
	if w, ok := p.millis("receiveWindow", r.ReceiveWindow, false); ok && w > MaxReceiveWindow.Milliseconds() {
		p.add("receiveWindow", CodeParamVerify, "at most %d ms (got %d)", MaxReceiveWindow.Milliseconds(), w)
	}
	return p.err()
}

// Validate checks the set-position-mode rules.
func (r SetPositionModeRequest) Validate(now time.Time) error {
	p := problems{op: OpSetPositionMode}
	p.productType(r.ProductType)
	p.required("posMode", string(r.PosMode))
	p.addEnum(posModes.check("posMode", r.PosMode))
	return p.err()
}

// Validate checks the order detail rules: symbol is upper case (the spec
// says so for this query only) and one of orderId and clientOid is sent.
func (r OrderDetailRequest) Validate(now time.Time) error {
	p := problems{op: OpOrderDetail}
	p.required("symbol", r.Symbol)
	p.upper("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.oneOfOrderIDs("", r.OrderID, r.ClientOID)
	return p.err()
}

// Validate checks the fills rules.
func (r FillsRequest) Validate(now time.Time) error {
	p := problems{op: OpFills}
	p.productType(r.ProductType)
	p.span(r.StartTime, r.EndTime, false, 0)
	p.limit(r.Limit, MaxPageLimit)
	return p.err()
}

// Validate checks the fill-history rules: the span is at most one week.
// When endTime is omitted the server ends the span a week after startTime,
// which is always within the rule.
func (r FillHistoryRequest) Validate(now time.Time) error {
	p := problems{op: OpFillHistory}
	p.productType(r.ProductType)
	p.span(r.StartTime, r.EndTime, false, MaxFillHistorySpan)
	p.limit(r.Limit, MaxPageLimit)
	return p.err()
}

// Validate checks the orders-pending rules: the status filter is live or
// partially_filled.
func (r PendingOrdersRequest) Validate(now time.Time) error {
	p := problems{op: OpOrdersPending}
	p.productType(r.ProductType)
	p.addEnum(pendingStatuses.check("status", r.Status))
	p.span(r.StartTime, r.EndTime, false, 0)
	p.limit(r.Limit, MaxPageLimit)
	return p.err()
}

// Validate checks the orders-history rules: the orderSource filter takes the
// spec's 18 filter values, and only the last 90 days before now are
// queryable (code 40704), so the span is at most 90 days too (40705).
func (r OrderHistoryRequest) Validate(now time.Time) error {
	p := problems{op: OpOrdersHistory}
	p.productType(r.ProductType)
	p.addEnum(historyFilterSources.check("orderSource", r.OrderSource))
	start, end, okS, okE := p.span(r.StartTime, r.EndTime, false, 0)
	oldest := now.Add(-OrderHistoryMaxAge).UnixMilli()
	switch {
	case okS && start < oldest:
		p.add("startTime", CodeOnly90Days, "only the last 90 days are queryable (startTime %d is before %d)", start, oldest)
	case okE && end < oldest:
		p.add("endTime", CodeOnly90Days, "only the last 90 days are queryable (endTime %d is before %d)", end, oldest)
	case okS && okE && end-start > OrderHistoryMaxAge.Milliseconds():
		p.add("endTime", CodeSpanOver90Days, "at most 90 days after startTime")
	}
	p.limit(r.Limit, MaxPageLimit)
	return p.err()
}

// Validate checks the stock-orderbook rules: symbol is required.
func (r StockOrderBookRequest) Validate(now time.Time) error {
	p := problems{op: OpStockOrderBook}
	p.required("symbol", r.Symbol)
	return p.err()
}

// Validate checks the stock-fills rules: symbol is required, limit at most 100.
func (r StockFillsRequest) Validate(now time.Time) error {
	p := problems{op: OpStockFills}
	p.required("symbol", r.Symbol)
	p.limit(r.Limit, MaxPageLimit)
	return p.err()
}

// Validate exists so that every request has one; the spec states no rule for
// stock-info (an empty symbol returns every pair).
func (r StockInfoRequest) Validate(now time.Time) error { return nil }

// Validate checks the unfilled-strategy-orders rules: category is required.
func (r StrategyOrdersRequest) Validate(now time.Time) error {
	p := problems{op: OpStrategyOrders}
	p.required("category", string(r.Category))
	p.addEnum(categories.check("category", r.Category.lower()))
	p.addEnum(strategyTypes.check("type", r.Type))
	return p.err()
}

// Validate exists so that every request has one; the spec states no rule for
// eligible-discount-rate (coin is optional).
func (r DiscountRateRequest) Validate(now time.Time) error { return nil }

// Validate checks the spot-record rules: both times required, at most 30
// days apart, limit at most 500.
func (r SpotRecordRequest) Validate(now time.Time) error {
	p := problems{op: OpSpotRecord}
	p.span(r.StartTime, r.EndTime, true, MaxSpotRecordSpan)
	p.limit(r.Limit, MaxSpotRecordLimit)
	return p.err()
}

// Validate checks the all-position rules (exchange notes).
func (r AllPositionsRequest) Validate(now time.Time) error {
	p := problems{op: OpAllPositions}
	p.productType(r.ProductType)
	p.upper("marginCoin", r.MarginCoin)
	return p.err()
}

// Validate checks the single-position rules (exchange notes): every field is required.
func (r SinglePositionRequest) Validate(now time.Time) error {
	return symbolAndCoin(OpSinglePosition, r.ProductType, r.Symbol, r.MarginCoin)
}

// symbolAndCoin checks the rules that single-position and single-account
// share: productType, symbol and an upper-case marginCoin, all required.
func symbolAndCoin(op Op, pt ProductType, symbol, marginCoin string) error {
	p := problems{op: op}
	p.productType(pt)
	p.required("symbol", symbol)
	p.required("marginCoin", marginCoin)
	p.upper("marginCoin", marginCoin)
	return p.err()
}

// Validate checks the contracts rules (exchange notes).
func (r ContractsRequest) Validate(now time.Time) error {
	p := problems{op: OpContracts}
	p.productType(r.ProductType)
	return p.err()
}

// Validate checks the ticker rules (exchange notes).
func (r TickerRequest) Validate(now time.Time) error {
	p := problems{op: OpTicker}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	return p.err()
}

// Validate checks the accounts rules (exchange notes).
func (r AccountsRequest) Validate(now time.Time) error {
	p := problems{op: OpAccounts}
	p.productType(r.ProductType)
	return p.err()
}

// Validate checks the single-account rules (the venue's docs): symbol,
// productType and marginCoin are all required.
func (r SingleAccountRequest) Validate(now time.Time) error {
	return symbolAndCoin(OpSingleAccount, r.ProductType, r.Symbol, r.MarginCoin)
}
