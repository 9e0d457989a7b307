package rulefmt

// ParamType is what a parameter's value must be.
type ParamType string

// Parameter types. Number, Text and ID-list parameters may be formulas
// ("=..."), checked at load for the right result type; Choice is literal
// unless its ParamDef allows a formula; Flag and the order list are literals
// only, so that every choice is visible in the file.
const (
	ParamNumber  ParamType = "number"         // a decimal, or a formula giving a number
	ParamText    ParamType = "text"           // a text, or a formula giving a text
	ParamSymbol  ParamType = "symbol"         // a futures contract symbol, or a formula giving one
	ParamChoice  ParamType = "choice"         // one of Values
	ParamFlag    ParamType = "true or false"  // a YAML boolean
	ParamIDList  ParamType = "list of ids"    // a list of order ids or client order ids, or a formula giving one
	ParamOrders  ParamType = "list of orders" // a list of order items (Items)
	ParamMessage ParamType = "message"        // a text with {{ formula }} placeholders
	ParamNames   ParamType = "list of names"  // a literal list of names (notification targets)
)

// ParamDef defines one parameter of an action: the loader checks values
// against it, and the JSON Schema and the reference are generated from it.
type ParamDef struct {
	Name     string
	Type     ParamType
	Values   []string // for ParamChoice
	Unit     string   // what a number means: "base coin", "quote currency per base coin"
	Doc      string
	Example  string // a YAML value, as written in a rule file
	Required bool
	// Positive numbers must be greater than zero (a literal is checked at
	// load; a formula when the rule fires).
	Positive bool
	// Formula lets a Choice be a formula giving one of Values, checked
	// when the rule fires (a product type computed from a symbol).
	Formula bool
	// Many lets a Choice be a list of Values; the action sends one request
	// per value (cancel_all over several product types).
	Many  bool
	Items []ParamDef // for ParamOrders
}
