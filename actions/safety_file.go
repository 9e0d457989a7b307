package actions

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tickrules/tickrules/rulefmt"
)

// ErrUnknownSafetyKey is wrapped by the error of a safety file with a key
// the engine does not know: a misspelt limit must never be silently ignored.
var ErrUnknownSafetyKey = errors.New("unknown key")

// decodeSafety reads the YAML of a safety file strictly. Every unknown key
// is reported with its line and column, the key probably meant and the keys
// allowed there; the keys are those of the Safety struct's yaml tags, so a
// new limit is known here as soon as it is declared.
func decodeSafety(path string, b []byte) (Safety, error) {
	var s Safety
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return s, fmt.Errorf("safety file %s: %w", path, err)
	}
	if len(root.Content) == 0 {
		// Likely a file saved before it was written: running without the
		// limits the trader meant to set must not pass silently.
		return s, fmt.Errorf("safety file %s is empty (or only comments): write the limits it should hold (docs/safety.md), or leave --safety out", path)
	}
	var problems []error
	unknownKeys(path, root.Content[0], reflect.TypeFor[Safety](), "", &problems)
	if len(problems) > 0 {
		return s, errors.Join(problems...)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("safety file %s: %w", path, err)
	}
	return s, nil
}

var (
	yamlUnmarshaler = reflect.TypeFor[yaml.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// unknownKeys walks n as a value of type t and reports every mapping key
// that t does not have. where is the path of n, e.g. "symbols.BTCUSDT".
func unknownKeys(path string, n *yaml.Node, t reflect.Type, where string, problems *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(yamlUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return // a scalar such as a decimal
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := map[string]reflect.Type{}
		var names []string
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			fields[name] = f.Type
			names = append(names, name)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				*problems = append(*problems, unknownKeyError(path, k, where, names))
				continue
			}
			unknownKeys(path, v, ft, join(where, k.Value), problems)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			unknownKeys(path, n.Content[i+1], t.Elem(), join(where, n.Content[i].Value), problems)
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			unknownKeys(path, item, t.Elem(), fmt.Sprintf("%s[%d]", where, i), problems)
		}
	}
}

func unknownKeyError(path string, k *yaml.Node, where string, allowed []string) error {
	in := "at the top level"
	if where != "" {
		in = "in " + where
	}
	hint := "allowed keys: " + strings.Join(allowed, ", ")
	if s := rulefmt.Suggest(k.Value, allowed); s != "" {
		hint = "did you mean " + s + "? (" + hint + ")"
	}
	return fmt.Errorf("%s:%d:%d: %w %q %s; %s", path, k.Line, k.Column, ErrUnknownSafetyKey, k.Value, in, hint)
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}
