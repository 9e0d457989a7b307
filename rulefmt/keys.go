package rulefmt

// KeyDef documents one key of the file, of defaults or of a rule. The
// loader accepts exactly these keys, and the schema and the reference are
// generated from the same table.
type KeyDef struct {
	Name     string
	Type     string // as the reference says it: text, condition, duration, ...
	Values   []string
	Default  string
	Required bool
	Doc      string
	Example  string
}

// The values of a rule's once: (rules.Once).
const (
	OncePerSession = "per_session"
	OncePerDay     = "per_day"
)

// FileKeys documents the top-level keys of a rule file.
func FileKeys() []KeyDef {
	return []KeyDef{
		{Name: "defaults", Type: "mapping", Doc: "Settings every action of the file inherits (see Defaults)."},
		{Name: "rules", Type: "list of rules", Required: true, Doc: "The rules of the file."},
	}
}

// RuleKeys documents the keys of one rule.
func RuleKeys() []KeyDef {
	return []KeyDef{
		{Name: "name", Type: "text", Required: true, Doc: "A short name, unique across all loaded files; no [ or ].", Example: "flatten-before-close"},
		{Name: "description", Type: "text", Doc: "What the rule is for, in your words.", Example: "Close TSLA before the bell."},
		{Name: "when", Type: "condition", Required: true, Doc: "The condition, an expression that gives true or false. No = in front.", Example: `market.session == "regular" && market.minutes_to_close <= 5`},
		{Name: "for", Type: "duration", Default: "0s", Doc: "How long the condition must hold before the rule fires.", Example: "30s"},
		{Name: "cooldown", Type: "duration", Default: "0s", Doc: "After firing, the rule waits this long before it can fire again.", Example: "10m"},
		{Name: "once", Type: "choice", Values: []string{OncePerSession, OncePerDay}, Doc: "Fire at most once per market session or per (Eastern) day.", Example: "per_session"},
		{Name: "enabled", Type: "true or false", Default: "true", Doc: "false keeps the rule checked but never run.", Example: "false"},
		{Name: "priority", Type: "whole number", Default: "0", Doc: "Rules that fire in the same tick act in priority order, higher first.", Example: "10"},
		{Name: "for_each", Type: "list of symbols", Doc: "Runs one copy of the rule per futures symbol, named name[SYMBOL]; the condition and formulas read the copy's symbol as symbol, and actions without symbol: trade it.", Example: "[TSLAUSDT, NVDAUSDT]"},
		{Name: "actions", Type: "list of actions", Required: true, Doc: "What the rule does when it fires, in order (see Actions).", Example: "[cancel_all: {}]"},
	}
}

// KeyNames returns the names of defs, in order.
func KeyNames(defs []KeyDef) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}
