package exchange

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// accountInfoDocumented is the response example of GET
// /api/v2/spot/account/info in the venue's docs
// (https://www.bitget.com/api-doc/spot/account/Get-Account-Info, read
// 2026-11-25): its userId is masked there, parentId is a number here and a
// string in the field table.
const accountInfoDocumented = `{"code":"00000","msg":"success","requestTime":1695808949356,"data":{
 "userId":"**********","inviterId":"**********","ips":"127.0.0.1","authorities":["trade","readonly"],
 "parentId":1,"traderType":"trader","channelCode":"XXX","channel":"YYY","regisTime":"1246566789345"}}`

func TestClientAccountInfo(t *testing.T) {
	var signed bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v2/spot/account/info" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		signed = r.Header.Get("ACCESS-SIGN") != "" && r.Header.Get("ACCESS-KEY") == "k"
		_, _ = w.Write([]byte(accountInfoDocumented))
	}))
	defer srv.Close()
	lim := NewLimiter(LimiterOptions{Ops: append(Ops(), AccountInfoOp())})
	c, err := NewClient(ClientOptions{BaseURL: srv.URL, Credentials: Credentials{APIKey: "k", Secret: "s", Passphrase: "p"}, Limiter: lim,
		ClockSync: -1}) // the fake answers account-info only
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.AccountInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !signed {
		t.Error("the request was not signed")
	}
	if !slices.Equal(info.Authorities, []string{"trade", "readonly"}) || info.IPs != "127.0.0.1" || info.TraderType != "trader" {
		t.Errorf("decoded %+v", info)
	}
}

func TestAccountInfoPermissions(t *testing.T) {
	tests := []struct {
		name                  string
		info                  AccountInfo
		read, trade, withdraw bool
		ips                   int
	}{
		{"documented example", AccountInfo{Authorities: []string{"trade", "readonly"}, IPs: "127.0.0.1"}, true, true, false, 1},
		{"futures read-write, two IPs", AccountInfo{Authorities: []string{"coow", "cpow"}, IPs: "1.2.3.4, 5.6.7.8"}, true, true, false, 2},
		{"futures read only", AccountInfo{Authorities: []string{"coor", "cpor"}}, true, false, false, 0},
		{"spot only", AccountInfo{Authorities: []string{"stor", "stow"}}, false, false, false, 0},
		{"withdrawal", AccountInfo{Authorities: []string{"coow", "wwow"}}, true, true, true, 0},
		{"none", AccountInfo{}, false, false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := tt.info
			if i.FuturesRead() != tt.read || i.FuturesTrade() != tt.trade || i.Withdraw() != tt.withdraw || len(i.BoundIPs()) != tt.ips {
				t.Errorf("read %v trade %v withdraw %v ips %v", i.FuturesRead(), i.FuturesTrade(), i.Withdraw(), i.BoundIPs())
			}
		})
	}
}

func FuzzDecodeAccountInfo(f *testing.F) {
	f.Add(200, []byte(accountInfoDocumented))
	f.Add(200, []byte(`{"code":"00000","msg":"success","requestTime":1,"data":{"authorities":null,"ips":""}}`))
	f.Add(400, []byte(`{"code":"40014","msg":"Incorrect permissions","requestTime":1,"data":null}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		var info AccountInfo
		err := decodeResponse(OpAccountInfo, status, body, &info)
		if err != nil && !isDocumentedDecodeError(err) {
			t.Fatalf("undocumented error %T: %v", err, err)
		}
		_ = info.BoundIPs()
	})
}
