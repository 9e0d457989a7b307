package exchange

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Every decoder of outside input must answer garbage with an error, never a
// panic, and its errors must be the documented kinds.

func isDocumentedDecodeError(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) || errors.Is(err, ErrBadResponse)
}

func addFixtureSeeds(f *testing.F, add func(body []byte)) {
	files, err := filepath.Glob(filepath.Join("testdata", "responses", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	addFixtureSeeds(f, func(b []byte) { f.Add(200, b) })
	f.Add(400, []byte(`{"code":"40009","msg":"sign signature error","requestTime":"1","data":null}`))
	f.Add(429, []byte(`{"code":"429","msg":"Too Many Requests","requestTime":1,"data":null}`))
	f.Add(502, []byte("<html>Bad Gateway</html>"))
	f.Add(200, []byte(""))
	f.Add(200, []byte(`{"code":"00000","requestTime":1e400}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		env, err := parseEnvelope(OpOrderDetail, status, body)
		if err != nil {
			if !isDocumentedDecodeError(err) {
				t.Fatalf("undocumented error %T: %v", err, err)
			}
			return
		}
		if env.Code != CodeSuccess || status < 200 || status > 299 {
			t.Fatalf("accepted code %q with status %d", env.Code, status)
		}
	})
}

// responseDecoder is one response type of one operation.
type responseDecoder struct {
	op     Op
	newDst func() any
}

// responseDecoders lists every distinct (operation, type) of the fixtures.
func responseDecoders() []responseDecoder {
	var out []responseDecoder
	seen := map[Op]bool{}
	for _, fx := range responseFixtures {
		if !seen[fx.op] {
			seen[fx.op] = true
			out = append(out, responseDecoder{fx.op, fx.newDst})
		}
	}
	return out
}

// FuzzDecodeResponse picks the decoder and the HTTP status by the first byte
// and feeds the decoder the rest.
func FuzzDecodeResponse(f *testing.F) {
	decoders := responseDecoders()
	index := map[Op]byte{}
	for i, d := range decoders {
		index[d.op] = byte(i)
	}
	for _, fx := range responseFixtures {
		b, err := os.ReadFile(filepath.Join("testdata", "responses", fx.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{index[fx.op]}, b...))
	}
	// The venue's documented answers seed it too: their shapes (numbers
	// for strings, nulls, odd keys) are what the live venue sends.
	for _, fx := range venueFixtures {
		b, err := os.ReadFile(filepath.Join("testdata", "venue", fx.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{index[fx.op]}, b...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		d := decoders[int(in[0])%len(decoders)]
		status := []int{200, 204, 400, 429, 500, 502}[int(in[0])/len(decoders)%6]
		dst, ref := d.newDst(), d.newDst()
		err := decodeResponse(d.op, status, in[1:], dst)
		refErr := decodeTwoStep(d.op, status, in[1:], ref)
		// The fast path must agree with the two-step path it shortcuts.
		if (err == nil) != (refErr == nil) || errors.Is(err, ErrBadResponse) != errors.Is(refErr, ErrBadResponse) {
			t.Fatalf("%s: decodeResponse says %v, decodeTwoStep says %v", d.op, err, refErr)
		}
		var a1, a2 *APIError
		if errors.As(err, &a1) != errors.As(refErr, &a2) || (a1 != nil && *a1 != *a2) {
			t.Fatalf("%s: API errors differ: %v vs %v", d.op, err, refErr)
		}
		if err != nil {
			if !isDocumentedDecodeError(err) {
				t.Fatalf("%s: undocumented error %T: %v", d.op, err, err)
			}
			return
		}
		if !reflect.DeepEqual(dst, ref) {
			t.Fatalf("%s: fast path decoded %#v, two-step path %#v", d.op, dst, ref)
		}
		if _, err := json.Marshal(dst); err != nil {
			t.Fatalf("%s: decoded value does not encode: %v", d.op, err)
		}
	})
}

// FuzzDecodeQuery checks the simulator's query decoder: no panic, errors are
// validation errors, and whatever it accepts and EncodeQuery can send comes
// back unchanged.
func FuzzDecodeQuery(f *testing.F) {
	f.Add("limit=100&productType=USDT-FUTURES&symbol=TSLAUSDT")
	f.Add("limit=ten")
	f.Add("limit=99999999999999999999&startTime=1&clientOid=a%26b")
	f.Add("status=live&status=partially_filled&idLessThan=")
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		for _, dst := range []any{&PendingOrdersRequest{}, &SpotRecordRequest{}, &StockFillsRequest{}} {
			if err := DecodeQuery(q, dst); err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("undocumented error %T: %v", err, err)
				}
				continue
			}
			enc, err := EncodeQuery(dst)
			if err != nil {
				continue // a value that cannot be sent unencoded
			}
			q2, err := url.ParseQuery(enc)
			if err != nil {
				t.Fatalf("EncodeQuery gave an unparsable query %q: %v", enc, err)
			}
			again := reflect.New(reflect.TypeOf(dst).Elem()).Interface()
			if err := DecodeQuery(q2, again); err != nil {
				t.Fatalf("re-decode %q: %v", enc, err)
			}
			if !reflect.DeepEqual(again, dst) {
				t.Fatalf("round trip changed %#v into %#v via %q", dst, again, enc)
			}
		}
	})
}
