package rules

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// Position is where something is in a rule file, 1-based, in the author's
// columns. The engine names it in traces ("rule x (rules/a.yaml:12:5)").
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// String returns "file:line:col".
func (p Position) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column) }

// File is one loaded rule file.
type File struct {
	Path     string
	Defaults Defaults
	// Rules are the file's rules after for_each expansion, in file order.
	Rules []*Rule
}

// Defaults are the file-level settings every action of the file inherits.
type Defaults struct {
	ProductType exchange.ProductType // default USDT-FUTURES
	// MarginCoin is empty when it follows the product type (USDT, USDC, or
	// the contract's base coin for COIN-FUTURES).
	MarginCoin string
	MarginMode exchange.MarginMode // default crossed
	// PositionMode is the account's position mode when the author states it
	// (or the catalog knows it); empty means "decided at run time".
	PositionMode exchange.PosMode
}

// Once limits a rule to one firing per market session or per day.
type Once string

// Once values; empty means no such limit.
const (
	OncePerSession Once = rulefmt.OncePerSession
	OncePerDay     Once = rulefmt.OncePerDay
)

// Rule is one rule as written (one instance of it for a for_each rule), with
// its condition and formulas compiled.
type Rule struct {
	// Name is unique in the loaded directories; a for_each instance is
	// named "name[SYMBOL]".
	Name string
	// BaseName is the name as written (same as Name without for_each).
	BaseName string
	// Symbol is the for_each symbol of this instance, "" otherwise.
	Symbol      string
	Description string
	// When is the condition as written and Condition its compiled program.
	When      string
	Condition *Program
	// For is how long the condition must hold before the rule fires.
	For time.Duration
	// Cooldown is the quiet time after a firing.
	Cooldown time.Duration
	Once     Once
	Enabled  bool
	// Priority orders rules that fire in the same tick: higher first.
	Priority int
	Actions  []*Action
	Pos      Position // of the rule's list item
	WhenPos  Position
	reads    Reads
}

// Action is one action of a rule. Params holds every parameter that was
// written, plus the product_type, margin_coin and margin_mode inherited from
// the defaults where the action has them (marked Inherited).
type Action struct {
	Kind ActionKind
	// Def is the kind's declaration (LoadOptions.Actions).
	Def    *ActionDef
	Params Params
	// Orders are the items of batch_place, each with its own Params.
	Orders []Params
	// Message is the parsed message of a log action.
	Message *Message
	Pos     Position
}

// Params are the parameters of an action or order item, by name.
type Params map[string]*Value

// Value is one parameter value: a literal, or a formula evaluated when the
// rule fires.
type Value struct {
	// Literal is decimal.Decimal for numbers, string for texts, symbols and
	// choices, bool for flags, []string for id lists, []Params for the
	// orders of batch_place and *Message for a log message; nil for a
	// formula.
	Literal any
	// Formula is the compiled formula and Source its text without "=".
	Formula *Program
	Source  string
	// Inherited is true for a value taken from the file's defaults.
	Inherited bool
	Pos       Position
}

// IsFormula reports whether v is computed when the rule fires.
func (v *Value) IsFormula() bool { return v != nil && v.Formula != nil }

// Decimal returns a literal number; ok is false for a formula or a missing value.
func (p Params) Decimal(name string) (d decimal.Decimal, ok bool) {
	v := p[name]
	if v == nil {
		return decimal.Zero, false
	}
	d, ok = v.Literal.(decimal.Decimal)
	return d, ok
}

// Text returns a literal text, symbol or choice; ok is false for a formula or
// a missing value.
func (p Params) Text(name string) (s string, ok bool) {
	v := p[name]
	if v == nil {
		return "", false
	}
	s, ok = v.Literal.(string)
	return s, ok
}

// Names returns the literal list of names of parameter name (nil when not
// given).
func (p Params) Names(name string) []string {
	v := p[name]
	if v == nil {
		return nil
	}
	names, _ := v.Literal.([]string)
	return names
}

// Message is the text of a log action split into literal text and formulas.
type Message struct {
	Parts []MessagePart
}

// MessagePart is a literal text (Formula nil) or a {{ formula }}.
type MessagePart struct {
	Text    string
	Formula *Program
	Source  string
}

// DefaultsKeys documents the keys of defaults:.
func DefaultsKeys() []rulefmt.KeyDef {
	return []rulefmt.KeyDef{
		{Name: "product_type", Type: "choice", Values: exchange.EnumValues()["productType"], Default: string(exchange.USDTFutures),
			Doc: "The futures product type the actions trade.", Example: "USDT-FUTURES"},
		{Name: "margin_coin", Type: "text", Default: "USDT for USDT-FUTURES, USDC for USDC-FUTURES, the contract's base coin for COIN-FUTURES",
			Doc: "The margin coin, upper case.", Example: "USDT"},
		{Name: "margin_mode", Type: "choice", Values: exchange.EnumValues()["marginMode"], Default: string(exchange.Crossed),
			Doc: "Margin mode of new orders.", Example: "isolated"},
		{Name: "position_mode", Type: "choice", Values: exchange.EnumValues()["posMode"],
			Doc: "The account's position mode, when you know it: the check then rejects raw fields the mode forbids (trade_side in one-way mode, reduce_only in hedge mode). Without it the engine reads the mode from the account.", Example: "hedge_mode"},
	}
}
