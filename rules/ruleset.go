package rules

import (
	"sort"
)

// RuleSet is every rule of a load, compiled, in evaluation order: higher
// priority first, then in the order of the files and of the rules in them.
type RuleSet struct {
	Files []*File
	Rules []*Rule
	reads Reads
}

func newRuleSet(files []*File) *RuleSet {
	rs := &RuleSet{Files: files}
	for _, f := range files {
		rs.Rules = append(rs.Rules, f.Rules...)
	}
	sort.SliceStable(rs.Rules, func(i, j int) bool { return rs.Rules[i].Priority > rs.Rules[j].Priority })
	var all Reads
	for _, r := range rs.Rules {
		r.reads = r.computeReads()
		if r.Enabled {
			all = all.Merge(r.reads)
		}
	}
	rs.reads = all
	return rs
}

// Reads returns what the enabled rules read, together: the State parts and
// the symbols the pollers must cover.
func (rs *RuleSet) Reads() Reads { return rs.reads }

// Rule returns the rule named name (a for_each instance as "name[SYMBOL]").
func (rs *RuleSet) Rule(name string) (*Rule, bool) {
	for _, r := range rs.Rules {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// Reads returns what the rule reads: the union over its condition and the
// formulas of its actions, with a for_each instance's symbol resolved.
func (r *Rule) Reads() Reads { return r.reads }

// Programs returns every compiled program of the rule: the condition first,
// then the formulas of its actions in order.
func (r *Rule) Programs() []*Program {
	var out []*Program
	if r.Condition != nil {
		out = append(out, r.Condition)
	}
	for _, a := range r.Actions {
		out = append(out, a.Programs()...)
	}
	return out
}

// Programs returns the formulas of the action: its parameters in name
// order, then those of each batch order, then the message placeholders.
func (a *Action) Programs() []*Program {
	var out []*Program
	out = a.Params.programs(out)
	for _, o := range a.Orders {
		out = o.programs(out)
	}
	if a.Message != nil {
		for _, p := range a.Message.Parts {
			if p.Formula != nil {
				out = append(out, p.Formula)
			}
		}
	}
	return out
}

func (p Params) programs(out []*Program) []*Program {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if f := p[n].Formula; f != nil {
			out = append(out, f)
		}
	}
	return out
}

func (r *Rule) computeReads() Reads {
	var rd Reads
	for _, p := range r.Programs() {
		rd = rd.Merge(p.Reads)
	}
	return rd
}
