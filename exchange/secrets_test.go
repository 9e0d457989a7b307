package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// assertNoSecret fails when out contains any of the test credentials.
func assertNoSecret(t *testing.T, where, out string) {
	t.Helper()
	for name, s := range map[string]string{"API key": testCreds.APIKey, "secret": testCreds.Secret, "passphrase": testCreds.Passphrase} {
		if strings.Contains(out, s) {
			t.Errorf("%s contains the %s: %s", where, name, out)
		}
	}
}

func TestCredentialsNeverPrint(t *testing.T) {
	opts := ClientOptions{BaseURL: "http://127.0.0.1:1", Credentials: testCreds}
	c, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	// fmt prints a Credentials in an unexported field without its methods
	// (see the Credentials doc), so the holder has none; a *Client there is
	// safe because the client keeps its credentials behind a pointer.
	type holder struct {
		C  Credentials
		P  *Credentials
		Cl *Client
		cl *Client
	}
	values := map[string]any{
		"credentials": testCreds, "pointer": &testCreds, "options": opts, "options pointer": &opts,
		"client": c, "holder": holder{testCreds, &testCreds, c, c}, "slice": []Credentials{testCreds},
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%10.3v"}
	for name, v := range values {
		for _, verb := range verbs {
			out := fmt.Sprintf(verb, v)
			assertNoSecret(t, name+" "+verb, out)
		}
		b, err := json.Marshal(v)
		if err == nil {
			assertNoSecret(t, name+" JSON", string(b))
		}
	}
	// Make sure the search above looked at the redacted form.
	if s := fmt.Sprint(testCreds); !strings.Contains(s, "[redacted]") {
		t.Errorf("String() = %q, want it to say [redacted]", s)
	}
	if s := fmt.Sprintf("%+v", Credentials{}); !strings.Contains(s, "[empty]") {
		t.Errorf("empty credentials print %q, want [empty]", s)
	}

	var buf bytes.Buffer
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	log := zap.New(zapcore.NewCore(enc, zapcore.AddSync(&buf), zapcore.DebugLevel))
	log.Info("creds", zap.Any("any", testCreds), zap.Object("object", testCreds), zap.Stringer("stringer", testCreds),
		zap.Any("options", opts), zap.Any("client", c), zap.Reflect("reflect", opts))
	log.Sync()
	if !strings.Contains(buf.String(), "[redacted]") {
		t.Fatalf("zap output has no redacted credentials, the test looked at the wrong thing: %s", buf.String())
	}
	assertNoSecret(t, "zap output", buf.String())

	var sbuf bytes.Buffer
	slog.New(slog.NewJSONHandler(&sbuf, nil)).Info("creds", "c", testCreds, "opts", opts)
	assertNoSecret(t, "slog output", sbuf.String())
}

// TestSecretsNotInLogsOrErrors runs requests that fail in every way while
// logging at debug level, and searches the logs and the errors.
func TestSecretsNotInLogsOrErrors(t *testing.T) {
	ts := newTestServer(t)
	var buf bytes.Buffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel))
	c, clk := newTestClient(t, ts.URL, func(o *ClientOptions) { o.Logger = log })
	ctx := context.Background()
	var errs []error

	ts.setRespond(func(n int, w http.ResponseWriter, r *http.Request) {
		switch n % 3 {
		case 1:
			w.WriteHeader(500)
		case 2:
			w.WriteHeader(400)
			w.Write([]byte(`{"code":"40009","msg":"sign signature error","requestTime":1,"data":null}`))
		default:
			hijackClose(w)
		}
	})
	for range 3 {
		errs = append(errs, runAdvancing(t, clk, func() error {
			_, err := c.Accounts(ctx, AccountsRequest{ProductType: USDTFutures})
			return err
		}))
		_, err := c.PlaceOrder(ctx, PlaceOrderRequest{Symbol: "TSLAUSDT", ProductType: USDTFutures, MarginMode: "crossed", MarginCoin: "USDT", Size: "1", Side: Buy, OrderType: "market"})
		errs = append(errs, err)
	}
	_, err := c.PlaceOrder(ctx, PlaceOrderRequest{})
	errs = append(errs, err)
	for _, err := range errs {
		if err == nil {
			t.Fatal("a failing call returned no error")
		}
		assertNoSecret(t, "error", err.Error())
		assertNoSecret(t, "error %+v", fmt.Sprintf("%+v", err))
	}
	log.Sync()
	if !strings.Contains(buf.String(), "retrying") {
		t.Fatalf("no retry was logged; the log check looked at nothing: %s", buf.String())
	}
	assertNoSecret(t, "client logs", buf.String())
	if strings.Contains(buf.String(), "ACCESS-SIGN") || strings.Contains(buf.String(), testChannel) {
		t.Errorf("client logs contain request headers: %s", buf.String())
	}
}
