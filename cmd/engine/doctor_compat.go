package main

// TEMPORARY (issue 13, doctor branch). The `live` branch adds to
// *exchange.Client the methods engine doctor needs beyond the Reader:
// SyncClock (with timestamps corrected by the measured offset),
// StockPathFamily and AccountPositionMode. Until it lands, this file gives
// a read-only client those methods as well as the existing client allows.
//
// At merge: delete this file and exchange/doctor_compat.go, and replace
// readOnlyDoctorVenue with:
//
//	func readOnlyDoctorVenue(opts exchange.ClientOptions, _ *http.Client) (doctor.Venue, error) {
//		ro, err := exchange.NewReadOnlyClient(opts)
//		if err != nil {
//			return nil, err
//		}
//		return ro.Reader.(*exchange.Client), nil // read-only at the transport
//	}

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tickrules/tickrules/doctor"
	"github.com/tickrules/tickrules/exchange"
)

// compatVenue is a read-only client with the methods of the live branch.
type compatVenue struct {
	*exchange.Client
	clk  *offsetClock
	http *http.Client
}

// offsetClock is the client's clock corrected by the measured offset, so
// that signed requests carry the venue's time as the live branch's client
// does.
type offsetClock struct {
	base exchange.Clock
	mu   sync.Mutex
	off  time.Duration
}

func (c *offsetClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base.Now().Add(c.off)
}

func (c *offsetClock) After(d time.Duration) <-chan time.Time { return c.base.After(d) }

func readOnlyDoctorVenue(opts exchange.ClientOptions, hc *http.Client) (doctor.Venue, error) {
	clk := &offsetClock{base: opts.Clock}
	opts.Clock = clk
	opts.HTTPClient = hc
	ro, err := exchange.NewReadOnlyClient(opts)
	if err != nil {
		return nil, err
	}
	return &compatVenue{Client: ro.Reader.(*exchange.Client), clk: clk, http: hc}, nil
}

// getPublic sends an unsigned GET (no paptrading header: public market
// data is the live one) and returns the envelope.
func (v *compatVenue) getPublic(ctx context.Context, path string) (exchange.Envelope, error) {
	var env exchange.Envelope
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.BaseURL()+path, http.NoBody)
	if err != nil {
		return env, err
	}
	resp, err := v.http.Do(req)
	if err != nil {
		return env, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return env, err
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return env, fmt.Errorf("GET %s: HTTP %d, not an envelope", path, resp.StatusCode)
	}
	if env.Code != exchange.CodeSuccess {
		return env, &exchange.APIError{Op: exchange.Op(path), HTTPStatus: resp.StatusCode, Code: env.Code, Msg: env.Msg}
	}
	return env, nil
}

// SyncClock reads GET /api/v2/public/time, or, where a venue lacks it
// (engine sim before the live branch), the requestTime of a public answer.
func (v *compatVenue) SyncClock(ctx context.Context) (time.Duration, error) {
	before := v.clk.base.Now()
	env, err := v.getPublic(ctx, "/api/v2/public/time")
	var server time.Time
	if err == nil {
		var t struct {
			ServerTime exchange.Millis `json:"serverTime"`
		}
		if err = json.Unmarshal(env.Data, &t); err == nil {
			server = t.ServerTime.Time()
		}
	} else if errors.Is(err, exchange.ErrNotFound) {
		env, err = v.getPublic(ctx, "/api/v2/mix/market/ticker?productType=USDT-FUTURES&symbol=BTCUSDT")
		server = env.RequestTime.Time()
	}
	if err != nil {
		return 0, err
	}
	after := v.clk.base.Now()
	off := server.Sub(before.Add(after.Sub(before) / 2))
	v.clk.mu.Lock()
	v.clk.off = off
	v.clk.mu.Unlock()
	return off, nil
}

// StockPathFamily asks the live venue's states path, then the spec's.
func (v *compatVenue) StockPathFamily(ctx context.Context) (exchange.PathFamily, error) {
	_, err := v.getPublic(ctx, "/api/v3/reality/market/states")
	if err == nil {
		return exchange.PathsReality, nil
	}
	if _, err2 := v.getPublic(ctx, "/api/v3/stock/market/states"); err2 != nil {
		return "", fmt.Errorf("%w; %w", err, err2)
	}
	return exchange.PathsSpec, nil
}

// AccountPositionMode reads the mode from the accounts list (engine sim
// sends it there) or from an open position of the product type.
func (v *compatVenue) AccountPositionMode(ctx context.Context, pt exchange.ProductType, _, marginCoin string) (exchange.PosMode, error) {
	accts, err := v.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
	if err != nil {
		return "", err
	}
	for _, a := range accts {
		if a.PosMode != "" && (a.MarginCoin == marginCoin || marginCoin == "") {
			return a.PosMode, nil
		}
	}
	pos, err := v.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: pt})
	if err != nil {
		return "", err
	}
	for _, p := range pos {
		if p.PosMode != "" {
			return p.PosMode, nil
		}
	}
	return "", errors.New("the accounts list carries no position mode and no position is open")
}
