package ruletest

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rulefmt"
)

// This file decodes a test file strictly from its yaml.Node tree: every
// unknown key, wrong shape and bad number is a finding at its line and
// column (with the closest known key as a hint), and decoding goes on so
// that one run reports every mistake, as the rule loader does.

// posError is an error at a node, from a value's own UnmarshalYAML.
type posError struct {
	line, column int
	msg, hint    string
}

func (e *posError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.column, e.msg) }

// positioned values remember where they were written, for later findings.
type positioned interface{ setPos(line, column int) }

func (t *Test) setPos(l, c int)          { t.line, t.column = l, c }
func (p *Position) setPos(l, c int)      { p.line, p.column = l, c }
func (o *Order) setPos(l, c int)         { o.line, o.column = l, c }
func (o *StrategyOrder) setPos(l, c int) { o.line, o.column = l, c }
func (r *SpotRecord) setPos(l, c int)    { r.line, r.column = l, c }
func (r *ClosedTrade) setPos(l, c int)   { r.line, r.column = l, c }
func (c *Change) setPos(l, col int)      { c.line, c.column = l, col }
func (e *Expect) setPos(l, c int)        { e.line, e.column = l, c }
func (f *Firing) setPos(l, c int)        { f.line, f.column = l, c }
func (a *ActionExpect) setPos(l, c int)  { a.line, a.column = l, c }
func (f *Fired) setPos(l, c int)         { f.line, f.column = l, c }

// keysSeen is told which keys a mapping had, to tell "fires: []" from no
// fires at all.
type keysSeen interface{ seen(keys []string) }

func (e *Expect) seen(keys []string) { e.firesGiven = slices.Contains(keys, "fires") }

type nodeUnmarshaler interface{ UnmarshalYAML(*yaml.Node) error }

var (
	numType          = reflect.TypeFor[Num]()
	unmarshalerIface = reflect.TypeFor[nodeUnmarshaler]()
)

// decoder collects findings of one file.
type decoder struct {
	file  string
	lines []string
	errs  rulefmt.Errors
}

func (d *decoder) errorAt(line, col int, msg, hint string) {
	src := ""
	if line >= 1 && line <= len(d.lines) {
		src = d.lines[line-1]
	}
	d.errs = append(d.errs, &rulefmt.Error{File: d.file, Line: line, Column: col, Severity: rulefmt.SeverityError, Message: msg, Hint: hint, Source: src})
}

func (d *decoder) errorAtNode(n *yaml.Node, msg, hint string) { d.errorAt(n.Line, n.Column, msg, hint) }

// decode fills v (addressable) from n; what names the value in findings.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if v.CanAddr() && v.Addr().Type().Implements(unmarshalerIface) {
		if err := v.Addr().Interface().(nodeUnmarshaler).UnmarshalYAML(n); err != nil {
			if pe, ok := err.(*posError); ok {
				d.errorAt(pe.line, pe.column, pe.msg, pe.hint)
			} else {
				d.errorAtNode(n, err.Error(), "")
			}
		}
		return
	}
	if isNull(n) && v.Kind() != reflect.Slice {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem(), what)
		v.Set(p)
	case reflect.Struct:
		d.decodeStruct(n, v, what)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.errorAtNode(n, what+" must be a mapping (key: value lines)", "")
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
				d.errorAtNode(k, fmt.Sprintf("%s %q is written twice", what, k.Value), "")
				continue
			}
			e := reflect.New(v.Type().Elem()).Elem()
			d.decode(val, e, what+" "+k.Value)
			m.SetMapIndex(reflect.ValueOf(k.Value), e)
		}
		v.Set(m)
	case reflect.Slice:
		if isNull(n) {
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.errorAtNode(n, what+" must be a list (lines starting with \"- \", or [a, b])", "")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if isNull(item) {
				// A nil item would reach the runner as a nil pointer.
				d.errorAtNode(item, fmt.Sprintf("%s item %d is empty", what, i+1), "remove the lone \"-\" or write the item after it")
				continue
			}
			d.decode(item, s.Index(i), fmt.Sprintf("%s item %d", what, i+1))
		}
		v.Set(s)
	case reflect.Array:
		if n.Kind != yaml.SequenceNode || len(n.Content) != v.Len() {
			d.errorAtNode(n, fmt.Sprintf("%s must be a list of %d values", what, v.Len()), "write [price, size]")
			return
		}
		for i, item := range n.Content {
			d.decode(item, v.Index(i), what)
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.errorAtNode(n, what+" must be a single value, not a list or mapping", "")
			return
		}
		if v.Type() == numType {
			if _, err := decimal.NewFromString(n.Value); err != nil {
				d.errorAtNode(n, fmt.Sprintf("%s must be a number, not %q", what, n.Value), "write digits with a dot for decimals, like 250.10")
				return
			}
		}
		v.SetString(n.Value)
	case reflect.Int:
		i, err := strconv.Atoi(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			d.errorAtNode(n, fmt.Sprintf("%s must be a whole number, not %q", what, n.Value), "write digits, like 2")
			return
		}
		v.SetInt(int64(i))
	default:
		d.errorAtNode(n, fmt.Sprintf("%s: unsupported value", what), "")
	}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// fieldRef is where a key of a struct lands (inline structs flattened).
type fieldRef struct{ index []int }

func fieldsOf(t reflect.Type) (map[string]fieldRef, []string) {
	out := map[string]fieldRef{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		if opt == "inline" {
			sub, subNames := fieldsOf(f.Type)
			for k, r := range sub {
				out[k] = fieldRef{append([]int{i}, r.index...)}
			}
			names = append(names, subNames...)
			continue
		}
		out[name] = fieldRef{[]int{i}}
		names = append(names, name)
	}
	return out, names
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind != yaml.MappingNode {
		d.errorAtNode(n, what+" must be a mapping (key: value lines)", "")
		return
	}
	fields, names := fieldsOf(v.Type())
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		ref, ok := fields[k.Value]
		if !ok {
			hint := "known keys: " + strings.Join(names, ", ")
			if s := rulefmt.Suggest(k.Value, names); s != "" {
				hint = fmt.Sprintf("did you mean %q?", s)
			}
			d.errorAtNode(k, fmt.Sprintf("unknown key %q in %s", k.Value, what), hint)
			continue
		}
		if slices.Contains(keys, k.Value) {
			d.errorAtNode(k, fmt.Sprintf("key %q is written twice in %s", k.Value, what), "")
			continue
		}
		keys = append(keys, k.Value)
		d.decode(val, v.FieldByIndex(ref.index), k.Value)
	}
	if p, ok := v.Addr().Interface().(positioned); ok {
		p.setPos(n.Line, n.Column)
	}
	if s, ok := v.Addr().Interface().(keysSeen); ok {
		s.seen(keys)
	}
}

// UnmarshalYAML reads "- kind: {param: value, ...}".
func (a *ActionExpect) UnmarshalYAML(n *yaml.Node) error {
	a.line, a.column = n.Line, n.Column
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return &posError{n.Line, n.Column, "an expected action is one action name with its parameters", "write - place_order: {side: buy, size: 2}"}
	}
	k, v := n.Content[0], n.Content[1]
	a.Kind = k.Value
	if _, ok := actions.KindOf(a.Kind); !ok {
		var kinds []string
		for _, k := range actions.Kinds() {
			kinds = append(kinds, string(k.Name()))
		}
		hint := "actions: " + strings.Join(kinds, ", ")
		if s := rulefmt.Suggest(a.Kind, kinds); s != "" {
			hint = fmt.Sprintf("did you mean %q?", s)
		}
		return &posError{k.Line, k.Column, fmt.Sprintf("unknown action %q", a.Kind), hint}
	}
	ps, err := params(v)
	a.Params = ps
	return err
}

// params reads a mapping of expected parameters.
func params(n *yaml.Node) ([]Param, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, &posError{n.Line, n.Column, "the parameters of an expected action must be a mapping", "write {size: 2, price: 249.75}"}
	}
	var out []Param
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := Param{Key: k.Value, line: k.Line, column: k.Column}
		switch v.Kind {
		case yaml.ScalarNode:
			p.Value = v.Value
		case yaml.SequenceNode:
			p.IsList = true
			for _, item := range v.Content {
				if item.Kind == yaml.ScalarNode {
					p.Items = append(p.Items, []Param{{Key: "", Value: item.Value, line: item.Line, column: item.Column}})
					continue
				}
				sub, err := params(item)
				if err != nil {
					return nil, err
				}
				p.Items = append(p.Items, sub)
			}
		default:
			return nil, &posError{v.Line, v.Column, fmt.Sprintf("parameter %s must be a value or a list", k.Value), ""}
		}
		out = append(out, p)
	}
	return out, nil
}
