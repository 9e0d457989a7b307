package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim/market"
)

// ErrScenario marks every scenario loading error, so callers can tell a bad
// file from an I/O failure.
var ErrScenario = errors.New("invalid scenario")

// LoadScenario reads and checks a scenario file. Unknown keys are errors;
// every error names file:line.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	return ParseScenario(data, path, filepath.Dir(path))
}

// ParseScenario decodes and checks a scenario. name is used in messages
// (file:line: ...); baseDir resolves relative CSV price paths.
func ParseScenario(data []byte, name, baseDir string) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, scenarioErr(name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	sc := &Scenario{}
	if err := dec.Decode(sc); err != nil {
		return nil, scenarioErr(name, err)
	}
	sc.Source, sc.BaseDir, sc.doc = name, baseDir, &root
	sc.applyDefaults()
	if errs := sc.check(); len(errs) > 0 {
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = fmt.Errorf("%s:%d: %s: %w", name, lineOf(&root, e.path), e.msg, ErrScenario)
		}
		return nil, errors.Join(out...)
	}
	return sc, nil
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// scenarioErr rewrites yaml.v3's "line N: msg" into "file:N: msg".
func scenarioErr(name string, err error) error {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	out := make([]error, len(msgs))
	for i, m := range msgs {
		if sub := yamlLine.FindStringSubmatch(m); sub != nil {
			out[i] = fmt.Errorf("%s:%s: %s: %w", name, sub[1], m[len(sub[0]):], ErrScenario)
		} else {
			out[i] = fmt.Errorf("%s: %s: %w", name, m, ErrScenario)
		}
	}
	return errors.Join(out...)
}

func (sc *Scenario) applyDefaults() {
	if sc.Clock.Step <= 0 {
		sc.Clock.Step = time.Second
	}
	s := &sc.Settings
	if s.OneWayTradeSide == "" {
		s.OneWayTradeSide = TradeSideReject
	}
	if s.DefaultLeverage.IsZero() {
		s.DefaultLeverage = ten
	}
	if s.MaintenanceMarginRate.IsZero() {
		s.MaintenanceMarginRate = defaultMMR
	}
	if s.BookLevels <= 0 {
		s.BookLevels = 40
	}
	if s.MaxCatchUpSteps <= 0 {
		s.MaxCatchUpSteps = 100000
	}
}

// checkErr is one semantic problem at a path of the document
// (keys and indices, e.g. "accounts", 1, "position_mode").
type checkErr struct {
	path []any
	msg  string
}

func (sc *Scenario) check() []checkErr {
	var errs []checkErr
	add := func(msg string, path ...any) { errs = append(errs, checkErr{path, msg}) }
	if sc.Clock.Start.IsZero() {
		add("clock.start is required", "clock")
	}
	if !sc.Clock.End.IsZero() && sc.Clock.End.Before(sc.Clock.Start) {
		add("clock.end is before clock.start", "clock", "end")
	}
	switch sc.Settings.OneWayTradeSide {
	case TradeSideReject, TradeSideIgnore:
	default:
		add(fmt.Sprintf("one_way_trade_side must be %q or %q (got %q)", TradeSideReject, TradeSideIgnore, sc.Settings.OneWayTradeSide), "settings", "one_way_trade_side")
	}
	contracts := map[string]bool{}
	for i, c := range sc.Contracts {
		key := string(c.ProductType) + "/" + c.Symbol
		switch {
		case !c.ProductType.Valid():
			add(fmt.Sprintf("product_type %q is not one of USDT-FUTURES, COIN-FUTURES, USDC-FUTURES", c.ProductType), "contracts", i)
		case c.Symbol == "":
			add("symbol is required", "contracts", i)
		case contracts[key]:
			add(fmt.Sprintf("contract %s is listed twice", key), "contracts", i)
		}
		contracts[key] = true
		if _, err := newContract(c); err != nil {
			add(err.Error(), "contracts", i)
		}
	}
	hasContract := func(pt exchange.ProductType, sym string) bool { return contracts[string(pt)+"/"+sym] }
	keys, uids := map[string]bool{}, map[string]bool{}
	for i, a := range sc.Accounts {
		if a.APIKey == "" || a.UID == "" {
			add("uid and api_key are required", "accounts", i)
		}
		if keys[a.APIKey] {
			add(fmt.Sprintf("api_key %q is used twice", a.APIKey), "accounts", i, "api_key")
		}
		if uids[a.UID] {
			add(fmt.Sprintf("uid %q is used twice", a.UID), "accounts", i, "uid")
		}
		keys[a.APIKey], uids[a.UID] = true, true
		for j, p := range a.Permissions {
			if !validPermission(p) {
				add(fmt.Sprintf("unknown permission %q", p), "accounts", i, "permissions", j)
			}
		}
		for _, pt := range slices.Sorted(maps.Keys(a.PositionMode)) {
			if m := a.PositionMode[pt]; !pt.Valid() || !m.Valid() {
				add(fmt.Sprintf("position_mode %s: %s: want a product type and one_way_mode or hedge_mode", pt, m), "accounts", i, "position_mode")
			}
		}
		for j, p := range a.Positions {
			if !hasContract(p.ProductType, p.Symbol) {
				add(fmt.Sprintf("position on unknown contract %s/%s", p.ProductType, p.Symbol), "accounts", i, "positions", j)
			}
			if !p.HoldSide.Valid() || !p.Size.IsPositive() || !p.OpenPrice.IsPositive() {
				add("a position needs hold_side long or short, size > 0 and open_price > 0", "accounts", i, "positions", j)
			}
			if p.MarginMode != "" && !p.MarginMode.Valid() {
				add(fmt.Sprintf("margin_mode %q is not isolated or crossed", p.MarginMode), "accounts", i, "positions", j)
			}
		}
		for j, o := range a.Orders {
			if !hasContract(o.ProductType, o.Symbol) {
				add(fmt.Sprintf("order on unknown contract %s/%s", o.ProductType, o.Symbol), "accounts", i, "orders", j)
			}
		}
		for j, s := range a.StrategyOrders {
			if msg := s.problem(); msg != "" {
				add(msg, "accounts", i, "strategy_orders", j)
			}
		}
		for j, h := range a.PositionHistory {
			if msg := h.problem(sc.Clock.Start, hasContract); msg != "" {
				add(msg, "accounts", i, "position_history", j)
			}
		}
		for j, r := range a.SpotRecords {
			if !r.SpotTaxType.Valid() {
				add(fmt.Sprintf("spot_tax_type %q is not a spot financial type of the spec", r.SpotTaxType), "accounts", i, "spot_records", j)
			}
			if r.TS.Int() == 0 || r.Coin == "" {
				add("a spot record needs coin and ts", "accounts", i, "spot_records", j)
			}
		}
	}
	for j, s := range sc.StrategyOrders {
		if msg := s.problem(); msg != "" {
			add(msg, "strategy_orders", j)
		}
		if s.Account != "" && !uids[s.Account] {
			add(fmt.Sprintf("account %q is not the uid of an account", s.Account), "strategy_orders", j)
		}
	}
	for j, d := range sc.DiscountTiers {
		if d.Coin == "" || len(d.List) == 0 {
			add("a discount entry needs coin and a non-empty list", "discount_tiers", j)
		}
	}
	if sc.Faults.ErrorRate < 0 || sc.Faults.ErrorRate > 1 || sc.Faults.DropRate < 0 || sc.Faults.DropRate > 1 {
		add("error_rate and drop_rate are fractions between 0 and 1", "faults")
	}
	return errs
}

// problem says what makes h a record no venue would hold, or "".
func (h ClosedPositionSpec) problem(start time.Time, hasContract func(exchange.ProductType, string) bool) string {
	switch {
	case !hasContract(h.productType(), h.Symbol):
		return fmt.Sprintf("closed position on unknown contract %s/%s", h.productType(), h.Symbol)
	case h.HoldSide != exchange.Long && h.HoldSide != exchange.Short:
		return fmt.Sprintf("hold_side is long or short, not %q", h.HoldSide)
	case !h.Size.IsPositive() || !h.OpenPrice.IsPositive() || !h.ClosePrice.IsPositive():
		return "a closed position needs size, open_price and close_price above 0"
	case h.Opened.IsZero() || h.Closed.IsZero() || h.Closed.Before(h.Opened):
		return "a closed position needs opened and closed times, closed not before opened"
	case !start.IsZero() && h.Closed.After(start):
		return "closed is after the scenario's start: the position history holds what closed before it"
	case h.Fees.IsNegative():
		return "fees are the fees paid, 0 or more"
	}
	return ""
}

func (s StrategyOrderSpec) problem() string {
	if !s.Type.Valid() {
		return fmt.Sprintf("type %q is not one of tpsl, trigger, oco, trailing_stop, iceberg, twap", s.Type)
	}
	if got := s.StrategyOrder.Type(); got != s.Type {
		return fmt.Sprintf("type is %s but the parameters given make a %s order", s.Type, got)
	}
	if !exchange.Category(strings.ToLower(string(s.Category))).Valid() {
		return fmt.Sprintf("category %q is not a category of the spec", s.Category)
	}
	return ""
}

var allPermissions = []exchange.Permission{
	exchange.PermFuturesRead, exchange.PermFuturesTrade, exchange.PermUnifiedTradeRead,
	exchange.PermUnifiedManageRead, exchange.PermStockWhitelist, exchange.PermSpotRecordsRead,
	exchange.PermUnifiedTradeWrite, exchange.PermUnifiedManageWrite,
}

func validPermission(p exchange.Permission) bool {
	for _, q := range allPermissions {
		if p == q {
			return true
		}
	}
	return false
}

// pathString renders a check path as accounts[1].position_mode.
func pathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, k)
		}
	}
	return b.String()
}

// lineOf finds the line of the node at path (map keys and sequence indices),
// falling back to the deepest node found.
func lineOf(root *yaml.Node, path []any) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, p := range path {
		next := (*yaml.Node)(nil)
		switch k := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						next = n.Content[i+1]
						if next.Kind == yaml.ScalarNode {
							next = n.Content[i]
						}
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return n.Line
}

// The sections whose items are wire records (contracts, strategy orders,
// discount tiers, spot records) are written in snake_case and decoded into
// the exchange's own types, so the scenario and the wire cannot drift apart:
// keys are turned into camelCase and the node is decoded as JSON, which
// matches field names case-insensitively (min_trade_usdt -> minTradeUSDT).

// UnmarshalYAML decodes a contract from snake_case keys.
func (c *ContractSpec) UnmarshalYAML(n *yaml.Node) error { return decodeWire(n, c) }

// UnmarshalYAML decodes a strategy order from snake_case keys.
func (s *StrategyOrderSpec) UnmarshalYAML(n *yaml.Node) error { return decodeWire(n, s) }

// UnmarshalYAML decodes a discount entry from snake_case keys.
func (d *DiscountCoinSpec) UnmarshalYAML(n *yaml.Node) error { return decodeWire(n, d) }

// UnmarshalYAML decodes a spot record from snake_case keys.
func (r *SpotRecordSpec) UnmarshalYAML(n *yaml.Node) error { return decodeWire(n, r) }

func decodeWire(n *yaml.Node, out any) error {
	budget := maxWireNodes
	v, err := wireValue(n, &budget)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
			msg = "unknown key " + snakeName(name)
		}
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, msg)}}
	}
	return nil
}

// maxWireNodes bounds one wire record, so that YAML aliases cannot expand
// a small file into an enormous one.
const maxWireNodes = 100000

// wireValue turns a YAML node into JSON-ready values: mapping keys to
// camelCase, booleans and nulls kept, timestamps to Unix milliseconds, every
// other scalar to a string (wire numbers are strings).
func wireValue(n *yaml.Node, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("line %d: record too large (aliases expand to more than %d nodes)", n.Line, maxWireNodes)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return wireValue(n.Alias, budget)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := wireValue(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			m[camel(n.Content[i].Value)] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := wireValue(c, budget)
			if err != nil {
				return nil, err
			}
			s[i] = v
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!bool":
			b, err := strconv.ParseBool(n.Value)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q is not a boolean", n.Line, n.Value)
			}
			return b, nil
		case "!!null":
			return nil, nil
		case "!!timestamp":
			var t time.Time
			if err := n.Decode(&t); err != nil {
				return nil, err
			}
			return strconv.FormatInt(t.UnixMilli(), 10), nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// camel turns snake_case into camelCase; keys without an underscore are kept.
func camel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// located names the scenario's file and line in err when err is a mistake
// in one part of the market's description (market.SpecError) and the
// scenario was read from a file.
func (sc *Scenario) located(err error) error {
	se, ok := errors.AsType[*market.SpecError](err)
	if !ok || sc.doc == nil {
		return err
	}
	return fmt.Errorf("%s:%d: %w", sc.Source, lineOf(sc.doc, se.Path), err)
}
