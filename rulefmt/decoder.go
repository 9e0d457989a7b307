package rulefmt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Decoder reads the YAML nodes of one file a person wrote, reporting each
// mistake where it is, in the author's words: a key that is not allowed (with
// the key meant), a duplicate key, a value of the wrong shape. It knows the
// shape of a file, never what a value means: the rule language (package
// rules) compiles and checks the values it hands over.
type Decoder struct {
	// Src is the file, for the positions and lines of findings.
	Src *Source
	// Errs collects the findings, in the order they were met.
	Errs Errors
}

// NewDecoder returns a decoder of src.
func NewDecoder(src *Source) *Decoder { return &Decoder{Src: src} }

// Errorf records an error at n.
func (d *Decoder) Errorf(n *yaml.Node, hint string, format string, args ...any) {
	d.Errs = append(d.Errs, d.Src.ErrorAt(NodePos(n), SeverityError, fmt.Sprintf(format, args...), hint))
}

// ErrorAt records an error at p.
func (d *Decoder) ErrorAt(p Pos, hint string, format string, args ...any) {
	d.Errs = append(d.Errs, d.Src.ErrorAt(p, SeverityError, fmt.Sprintf(format, args...), hint))
}

// Warnf records a warning at n.
func (d *Decoder) Warnf(n *yaml.Node, hint string, format string, args ...any) {
	d.Errs = append(d.Errs, d.Src.ErrorAt(NodePos(n), SeverityWarning, fmt.Sprintf(format, args...), hint))
}

// WarnAt records a warning at p.
func (d *Decoder) WarnAt(p Pos, hint, msg string) {
	d.Errs = append(d.Errs, d.Src.ErrorAt(p, SeverityWarning, msg, hint))
}

// KeyValue is one entry of a mapping.
type KeyValue struct {
	Key, Value *yaml.Node
}

// Deref follows an alias to the node it names.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// Describe names the kind of a node for messages: "a list", "the text 'two'".
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping (key: value lines)"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "nothing"
		case "!!bool":
			return n.Value
		case "!!int", "!!float":
			return "the number " + n.Value
		}
		return fmt.Sprintf("the text '%s'", n.Value)
	}
	return "something else"
}

// Mapping returns the entries of a mapping node in order, reporting a node
// that is not a mapping (as what), duplicate keys and keys not in allowed
// (with the key meant, from the words authors use for it).
func (d *Decoder) Mapping(n *yaml.Node, what string, allowed []string) ([]KeyValue, bool) {
	entries, _, ok := d.MappingSuggest(n, what, allowed)
	return entries, ok
}

// MappingSuggest is Mapping that also returns the keys an unknown key's
// hint suggested, so that callers do not report them missing as well.
func (d *Decoder) MappingSuggest(n *yaml.Node, what string, allowed []string) (_ []KeyValue, suggested map[string]bool, _ bool) {
	n = Deref(n)
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, "", "%s must be a mapping of key: value lines, got %s", what, Describe(n))
		return nil, nil, false
	}
	suggested = map[string]bool{}
	seen := map[string]*yaml.Node{}
	var out []KeyValue
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], Deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.Errorf(k, "put the key in quotes or check the line above", "a key of %s must be a word, got %s", what, Describe(k))
			continue
		}
		if k.Value == "<<" {
			d.Errorf(k, "write the keys out; rule files do not use <<", "YAML merge keys (<<) are not supported")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.Errorf(k, fmt.Sprintf("the first %s is on line %d; remove one of them", k.Value, first.Line),
				"%s is given twice in %s", k.Value, what)
			continue
		}
		seen[k.Value] = k
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			if k.Value == "client_oid" {
				d.Errorf(k, "leave it out: the engine derives each order's client_oid from the rule and the firing, so a retry or a restart never places an order twice",
					"client_oid cannot be set in %s", what)
				continue
			}
			hint, meant := unknownKeyHint(k.Value, allowed)
			if meant != "" {
				suggested[meant] = true
			}
			d.Errorf(k, hint, "unknown key %s in %s", k.Value, what)
			continue
		}
		out = append(out, KeyValue{k, v})
	}
	return out, suggested, true
}

func unknownKeyHint(key string, allowed []string) (hint, meant string) {
	if s, ok := KeySynonym(key); ok && slices.Contains(allowed, s) {
		return "did you mean " + s + "?", s
	}
	if s := Suggest(strings.ToLower(key), allowed); s != "" {
		return "did you mean " + s + "?", s
	}
	return "allowed keys: " + strings.Join(allowed, ", "), ""
}

// KeySynonym returns the key an author most likely meant by word (when for
// condition, size for qty...), whatever its case.
func KeySynonym(word string) (string, bool) {
	s, ok := keySynonyms[strings.ToLower(word)]
	return s, ok
}

// keySynonyms are words authors reach for instead of the key they meant.
var keySynonyms = map[string]string{
	"condition": "when", "if": "when", "trigger": "when", "then": "actions", "do": "actions",
	"action": "actions", "title": "name", "id": "name", "wait": "for", "hold": "for",
	"duration": "for", "delay": "for", "cool_down": "cooldown", "cooldown_period": "cooldown",
	"rule": "rules", "default": "defaults", "product": "product_type", "producttype": "product_type",
	"qty": "size", "quantity": "size", "amount": "size", "ordertype": "type", "order_type": "type",
	"tp": "take_profit", "sl": "stop_loss", "takeprofit": "take_profit", "stoploss": "stop_loss",
	"tradeside": "trade_side", "reduceonly": "reduce_only", "marginmode": "margin_mode",
	"margincoin": "margin_coin", "clientoid": "client_oid", "orderid": "order_id", "msg": "message",
	"text": "message", "each": "for_each", "foreach": "for_each", "symbols": "for_each",
	"holdside": "side", "position_side": "side", "positionmode": "position_mode", "mode": "position_mode",
}

// valueSynonyms are values authors write for the choice they meant.
var valueSynonyms = map[string]string{
	"buy": "long", "sell": "short", "one_way": "one_way_mode", "oneway": "one_way_mode",
	"hedge": "hedge_mode", "cross": "crossed", "isolate": "isolated", "session": "per_session",
	"day": "per_day", "daily": "per_day", "warning": "warn", "usdt": "USDT-FUTURES",
}

// Text decodes a scalar as a text (numbers and booleans keep their
// spelling).
func (d *Decoder) Text(n *yaml.Node, name string) (string, bool) {
	n = Deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.Errorf(n, "", "%s must be a text, got %s", name, Describe(n))
		return "", false
	}
	return n.Value, true
}

// Choice decodes a scalar that must be one of values.
func (d *Decoder) Choice(n *yaml.Node, name string, values []string) (string, bool) {
	n = Deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.Errorf(n, "", "%s must be one of %s, got %s", name, strings.Join(values, ", "), Describe(n))
		return "", false
	}
	if slices.Contains(values, n.Value) {
		return n.Value, true
	}
	hint := ""
	if s, ok := valueSynonyms[strings.ToLower(n.Value)]; ok && slices.Contains(values, s) {
		hint = "did you mean " + s + "?"
	} else if s := Suggest(strings.ToLower(n.Value), values); s != "" {
		hint = "did you mean " + s + "?"
	}
	d.Errorf(n, hint, "%s must be one of %s, got '%s'", name, strings.Join(values, ", "), n.Value)
	return "", false
}

// Duration decodes "30s", "5m", "1h30m": zero, reported, when it is not
// one.
func (d *Decoder) Duration(n *yaml.Node, name string) time.Duration {
	n = Deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.Errorf(n, "write a duration such as 30s, 5m or 1h", "%s must be a duration, got %s", name, Describe(n))
		return 0
	}
	if n.Tag == "!!int" || n.Tag == "!!float" {
		d.Errorf(n, fmt.Sprintf("did you mean %ss (seconds) or %sm (minutes)?", n.Value, n.Value),
			"%s needs a unit: s, m or h", name)
		return 0
	}
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		d.Errorf(n, "write a duration such as 30s, 5m, 1h or 1h30m (units: ms, s, m, h)", "%s must be a duration, got '%s'", name, n.Value)
		return 0
	}
	if v < 0 {
		d.Errorf(n, "", "%s cannot be negative", name)
		return 0
	}
	return v
}

// Flag decodes true or false.
func (d *Decoder) Flag(n *yaml.Node, name string) (bool, bool) {
	n = Deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err == nil {
			return b, true
		}
	}
	hint := ""
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "yes", "on", "y":
			hint = "did you mean true?"
		case "no", "off", "n":
			hint = "did you mean false?"
		}
	}
	d.Errorf(n, hint, "%s must be true or false, got %s", name, Describe(n))
	return false, false
}

// Integer decodes a whole number between -999999 and 999999.
func (d *Decoder) Integer(n *yaml.Node, name string) int {
	n = Deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		v, err := strconv.Atoi(n.Value)
		if err == nil && v > -1_000_000 && v < 1_000_000 {
			return v
		}
	}
	d.Errorf(n, "", "%s must be a whole number between -999999 and 999999, got %s", name, Describe(n))
	return 0
}
