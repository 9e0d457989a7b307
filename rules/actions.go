package rules

import (
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// ActionKind names one kind of action a rule can take: the key of one item
// of a rule's actions list (place_order, log...).
type ActionKind string

// ActionDef declares one action kind to the loader: its parameters, the
// exchange operation it uses and the rules between its parameters that a
// schema cannot say. Each kind is declared in its own file of package
// actions, beside how it plans its requests; the loader, the JSON Schema
// and the reference are given the list (LoadOptions.Actions, Schema,
// Reference) rather than keeping one of their own.
type ActionDef struct {
	Kind ActionKind
	Doc  string
	// Op is the exchange operation the action's requests use; "" for an
	// action that sends nothing (log, notify, halt).
	Op      exchange.Op
	Params  []rulefmt.ParamDef
	Example string // a complete action item in YAML
	// Check reports contradictions between parameters; it sees only the
	// parameters that were given, already type-checked. Nil when the
	// parameters' own declarations say everything.
	Check func(c *ActionCheck)
}

// Param returns the definition of the parameter name.
func (d *ActionDef) Param(name string) (rulefmt.ParamDef, bool) {
	for _, p := range d.Params {
		if p.Name == name {
			return p, true
		}
	}
	return rulefmt.ParamDef{}, false
}

// LookupAction returns the definition of kind among defs.
func LookupAction(defs []*ActionDef, kind string) (*ActionDef, bool) {
	for _, d := range defs {
		if string(d.Kind) == kind {
			return d, true
		}
	}
	return nil, false
}

func actionKindNames(defs []*ActionDef) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = string(d.Kind)
	}
	return out
}

func paramNames(defs []rulefmt.ParamDef) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}
