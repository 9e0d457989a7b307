package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/tickrules/tickrules/clock"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/server"
)

// ExampleNew serves the demo scenario on a loopback port with a virtual
// clock (so requestTime is reproducible) and asks for a public endpoint.
func ExampleNew() {
	sc := sim.Demo()
	clk := clock.NewVirtual(sc.Clock.Start)
	x, err := sim.New(sc, sim.Options{Clock: clk})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(server.New(server.Options{Backend: server.SimBackend(x), Clock: clk, Faults: x.Faults()}))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/v3/stock/market/stock-info?symbol=TSLAUSDT")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))

	resp, err = http.Get(srv.URL + "/api/v2/mix/order/no-such-op")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output:
	// 200 {"code":"00000","msg":"success","requestTime":1773061200000,"data":[{"symbol":"TSLAUSDT","code":"TSLA","name":"Tesla, Inc.","tradingPeriod":["pre_market","regular","after_hours","overnight"],"weekendTradable":"no"}]}
	// 404 {"code":"40404","msg":"Request URL NOT FOUND","requestTime":1773061200000,"data":null}
}
