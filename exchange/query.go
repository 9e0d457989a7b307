package exchange

import (
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The query string of a GET request is signed with keys sorted ascending
// and values not percent-encoded (exchange notes). The characters '#' and
// '+' occur in the venue's own clientOids (BITGET#...), so they are allowed
// in values: signed as they are and percent-encoded on the wire (wireQuery),
// where the venue decodes them before checking the signature. Every other
// character that would change the meaning of the URL is rejected.

// EncodeQuery returns the query string of a request struct (or a pointer to
// one): its string and integer fields by json tag name, keys sorted
// ascending, values unencoded, empty values (the empty string, 0) left out
// whatever the tag says, and fields tagged "-" never sent: the string that
// is signed. A nil request gives "". A value containing a character that
// would change the meaning of the URL (space, '&', '=', '%', control or
// non-ASCII bytes) is rejected with a *ValidationError naming the field;
// '#' and '+' are allowed (see wireQuery).
func EncodeQuery(req any) (string, error) {
	v, ok := structValue(req)
	if !ok {
		return "", nil
	}
	qc, err := queryCodecFor(v.Type())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range qc.fields {
		s := f.format(v.Field(f.index))
		if s == "" {
			continue
		}
		if i := strings.IndexFunc(s, unsafeQueryRune); i >= 0 {
			return "", &ValidationError{Field: f.name, Rule: fmt.Sprintf("must not contain %q: query values are signed and sent unencoded", s[i:i+1])}
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(f.name)
		b.WriteByte('=')
		b.WriteString(s)
	}
	return b.String(), nil
}

// DecodeQuery fills the request struct that dst points to from q, the
// inverse of EncodeQuery; the simulator's HTTP server uses it. Parameters
// that dst has no field for are ignored; of a repeated parameter the first
// value counts. A value that is not an integer for an integer field is a
// *ValidationError naming the parameter.
func DecodeQuery(q url.Values, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("decode query: want a non-nil pointer to a struct, got %T", dst)
	}
	v := rv.Elem()
	qc, err := queryCodecFor(v.Type())
	if err != nil {
		return err
	}
	for _, f := range qc.fields {
		vals, ok := q[f.name]
		if !ok || len(vals) == 0 {
			continue
		}
		if err := f.parse(v.Field(f.index), vals[0]); err != nil {
			return err
		}
	}
	return nil
}

func unsafeQueryRune(r rune) bool {
	if r <= ' ' || r >= 0x7f {
		return true
	}
	switch r {
	case '&', '=', '%':
		return true
	}
	return false
}

// wireEscaper percent-encodes the two characters EncodeQuery lets through
// that a URL cannot carry literally: '#' would end the query and '+' would
// be read as a space.
var wireEscaper = strings.NewReplacer("#", "%23", "+", "%2B")

// wireQuery returns the query as sent on the wire for q, the signed query
// string of EncodeQuery: '#' and '+' percent-encoded, everything else as it
// is. A server decoding it and sorting the keys gets q back.
func wireQuery(q string) string { return wireEscaper.Replace(q) }

func structValue(req any) (reflect.Value, bool) {
	v := reflect.ValueOf(req)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	return v, v.Kind() == reflect.Struct
}

// queryCodec is the reflected shape of one request type, built once.
type queryCodec struct {
	fields []queryField // sorted by name
}

type queryField struct {
	name  string
	index int
	kind  reflect.Kind
}

func (f queryField) format(v reflect.Value) string {
	switch f.kind {
	case reflect.String:
		return v.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); n != 0 {
			return strconv.FormatInt(n, 10)
		}
	}
	return ""
}

func (f queryField) parse(v reflect.Value, s string) error {
	switch f.kind {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			return &ValidationError{Field: f.name, Rule: fmt.Sprintf("must be an integer (got %q)", s), Code: CodeParamWrong}
		}
		v.SetInt(n)
	}
	return nil
}

// queryCodecs caches one *queryCodec (or the error explaining why the type
// cannot be a query) per reflect.Type. It only ever grows by the handful of
// request types, so it is a bounded cache, not mutable state.
var queryCodecs sync.Map // reflect.Type -> queryCodecEntry

type queryCodecEntry struct {
	qc  *queryCodec
	err error
}

func queryCodecFor(t reflect.Type) (*queryCodec, error) {
	if e, ok := queryCodecs.Load(t); ok {
		entry := e.(queryCodecEntry)
		return entry.qc, entry.err
	}
	qc, err := buildQueryCodec(t)
	queryCodecs.Store(t, queryCodecEntry{qc, err})
	return qc, err
}

func buildQueryCodec(t reflect.Type) (*queryCodec, error) {
	qc := &queryCodec{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		switch sf.Type.Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		default:
			return nil, fmt.Errorf("query of %s: field %s has kind %s; only strings and integers can be query parameters", t, sf.Name, sf.Type.Kind())
		}
		if seen[name] {
			return nil, fmt.Errorf("query of %s: parameter %q appears twice", t, name)
		}
		seen[name] = true
		qc.fields = append(qc.fields, queryField{name: name, index: i, kind: sf.Type.Kind()})
	}
	sort.Slice(qc.fields, func(i, j int) bool { return qc.fields[i].name < qc.fields[j].name })
	return qc, nil
}
