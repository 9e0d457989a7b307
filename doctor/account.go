package doctor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
)

// run is one doctor run: what the checks found so far, for the checks
// that depend on it.
type run struct {
	opts Options
	v    Venue
	rep  *Report

	// signed is set once the venue answered a signed request: the
	// account's checks run only then.
	signed bool
	// accounts caches the balances per product type (the credentials
	// check reads USDT-FUTURES).
	accounts map[exchange.ProductType][]exchange.Account

	cat *rules.Catalog
	// noContracts is set when a product type's contracts could not be read.
	noContracts bool
	// noStockInfo is why the stock pairs could not be read, if they could not.
	noStockInfo error
	rs          *rules.RuleSet
	// use is what the rules trade, per product type, in the order of
	// exchange.ProductTypes.
	use []productUse
}

// clock measures the offset to the venue's clock first, so that the
// signed requests after it carry a corrected timestamp.
func (d *run) clock(ctx context.Context) {
	off, err := d.v.SyncClock(ctx)
	// A *exchange.ClockSkewError is a measurement: the offset is known and
	// judged below.
	if err != nil && !errors.Is(err, exchange.ErrClockSkew) {
		d.rep.add(Warn, "clock", "make sure this computer synchronises its clock (on Linux: timedatectl set-ntp true)",
			"could not read the venue's clock (%v); signed requests fail if this computer's clock is 30s off", err)
		return
	}
	skew := off.Abs().Round(time.Millisecond)
	switch {
	case skew < ClockOK:
		d.rep.add(OK, "clock", "", "within %s of the venue's clock", ClockOK)
	case skew < ClockFail:
		d.rep.add(Warn, "clock", "turn on automatic time synchronisation (on Linux: timedatectl set-ntp true)",
			"this computer's clock is %s off the venue's; the engine corrects its timestamps for it", skew)
	default:
		d.rep.add(Fail, "clock", "turn on automatic time synchronisation (on Linux: timedatectl set-ntp true), then run doctor again",
			"this computer's clock is %s off the venue's: the venue refuses signed requests more than 30s off (error 40008), and a clock this far off keeps drifting", skew)
	}
}

// credentials sends one signed read, the balances of USDT-FUTURES.
func (d *run) credentials(ctx context.Context) {
	accts, err := d.v.Accounts(ctx, exchange.AccountsRequest{ProductType: exchange.USDTFutures})
	if err != nil {
		fix := credentialFix(err, d.opts.Demo)
		d.rep.add(Fail, "credentials", fix, "the venue refused a signed request (%v); the account checks are skipped", err)
		return
	}
	d.signed = true
	d.accounts = map[exchange.ProductType][]exchange.Account{exchange.USDTFutures: accts}
	what := "accepted: the venue answered a signed request"
	if d.opts.Demo {
		what += " in demo trading (paptrading header with a demo key)"
	}
	d.rep.add(OK, "credentials", "", "%s", what)
}

// codeDemoScheme is the venue's answer reported when a demo account is
// addressed in the other of its two demo schemes (exchange notes, "Demo
// trading"); the exchange package has no constant for it.
const codeDemoScheme = "40099"

// credentialFix says what to do about a refused signed request, by the
// venue's error code.
func credentialFix(err error, demo bool) string {
	var api *exchange.APIError
	if !errors.As(err, &api) {
		return "check the network and the --venue address; the venue could not be reached"
	}
	other := "a live key works only with --venue live, a demo-trading key only with --venue demo"
	if demo {
		other = "--venue demo needs a key created in the demo-trading area of the exchange; a live key is refused there"
	}
	switch api.Code {
	case exchange.CodeKeyInvalid, exchange.CodeKeyUnknown:
		return "check TICKRULES_API_KEY: the venue does not know this key (" + other + ")"
	case exchange.CodeKeyOrPassphrase:
		return "check TICKRULES_API_PASSPHRASE: it is the passphrase you chose when creating the key"
	case exchange.CodeSignature:
		return "check TICKRULES_API_SECRET: the signature does not match (copy the secret again, without spaces)"
	case exchange.CodeTimestampExpired, exchange.CodeTimestampInvalid:
		return "set this computer's clock right (on Linux: timedatectl set-ntp true)"
	case exchange.CodePermission:
		return "give the key the futures read permission on the exchange's API management page"
	case codeDemoScheme:
		return "this account answers the older demo scheme (S-prefixed product types), which the engine does not speak; create a new demo-trading key"
	}
	if api.HTTPStatus == 403 || api.HTTPStatus == 401 {
		return "check that the key is bound to this computer's IP address on the exchange's API management page"
	}
	return "check the three TICKRULES_API_... values; " + other
}

// permissions reads the key's permissions as the venue reports them.
func (d *run) permissions(ctx context.Context) {
	if !d.signed {
		return
	}
	info, err := d.v.AccountInfo(ctx)
	if err != nil {
		d.rep.add(Warn, "permissions", "on the exchange's API management page, check that the key has futures read and trade and no withdrawal (a spot read-only permission lets doctor read this)",
			"unknown: the venue did not report the key's permissions (%v)", shortError(err))
		return
	}
	var missing []string
	if !info.FuturesRead() {
		missing = append(missing, "futures read")
	}
	if !info.FuturesTrade() {
		missing = append(missing, "futures trade")
	}
	has := "futures read and trade"
	if len(missing) > 0 {
		d.rep.add(Fail, "permissions", "edit the key on the exchange's API management page: allow futures orders and holdings, read and write",
			"the key lacks %s (the venue reports %s)", strings.Join(missing, " and "), authorities(info))
		return
	}
	if info.Withdraw() {
		d.rep.add(Fail, "permissions", "create a new key without the withdrawal permission; a trading engine never needs it, and a stolen key with it can empty the account",
			"%s, and withdrawal", has)
		return
	}
	ips := info.BoundIPs()
	if len(ips) == 0 {
		d.rep.add(Warn, "permissions", "bind the key to the IP address of the computer that runs the engine (API management page, IP whitelist)",
			"%s, no withdrawal; the key is not bound to an IP address", has)
		return
	}
	d.rep.add(OK, "permissions", "", "%s, no withdrawal; bound to %s", has, plural(len(ips), "IP address"))
}

func authorities(info exchange.AccountInfo) string {
	if len(info.Authorities) == 0 {
		return "none"
	}
	return strings.Join(info.Authorities, ", ")
}

// accountsOf returns the balances of pt, reading them once.
func (d *run) accountsOf(ctx context.Context, pt exchange.ProductType) ([]exchange.Account, error) {
	if a, ok := d.accounts[pt]; ok {
		return a, nil
	}
	a, err := d.v.Accounts(ctx, exchange.AccountsRequest{ProductType: pt})
	if err != nil {
		return nil, err
	}
	d.accounts[pt] = a
	return a, nil
}

// balances shows the available margin per product type the rules trade
// (USDT-FUTURES without rules).
func (d *run) balances(ctx context.Context) {
	if !d.signed {
		return
	}
	for _, pt := range d.productTypes() {
		topic := "balance " + string(pt)
		accts, err := d.accountsOf(ctx, pt)
		if err != nil {
			d.rep.add(Warn, topic, "run doctor again; if it persists, check the key's futures read permission", "could not read the balances (%v)", shortError(err))
			continue
		}
		var parts []string
		funded := false
		for _, a := range accts {
			if a.Available.IsZero() && a.AccountEquity.IsZero() {
				continue
			}
			funded = funded || !a.Available.IsZero()
			parts = append(parts, fmt.Sprintf("%s %s available (equity %s)", a.MarginCoin, a.Available, a.AccountEquity))
		}
		if !funded {
			fix := "transfer margin to the " + string(pt) + " account before the rules trade"
			if d.opts.Demo {
				fix = "claim demo funds in the exchange's demo-trading area"
			}
			d.rep.add(Warn, topic, fix, "no available margin: orders will be refused")
			continue
		}
		d.rep.add(OK, topic, "", "%s", strings.Join(parts, ", "))
	}
}

// exposure lists the open orders and positions on the symbols the rules
// touch: the rules see them from the first tick and may act on them.
func (d *run) exposure(ctx context.Context) {
	if !d.signed || d.rs == nil {
		return
	}
	for _, u := range d.use {
		topic := "positions, orders " + string(u.productType)
		pos, err := d.v.AllPositions(ctx, exchange.AllPositionsRequest{ProductType: u.productType})
		if err != nil {
			d.rep.add(Warn, topic, "run doctor again", "could not read the positions (%v)", shortError(err))
			continue
		}
		orders, err := d.openOrders(ctx, u.productType)
		if err != nil {
			d.rep.add(Warn, topic, "run doctor again", "could not read the open orders (%v)", shortError(err))
			continue
		}
		count := map[string][2]int{} // symbol -> positions, orders
		for _, p := range pos {
			if u.touches(p.Symbol) && !p.Total.IsZero() {
				c := count[p.Symbol]
				c[0]++
				count[p.Symbol] = c
			}
		}
		for _, o := range orders {
			if u.touches(o.Symbol) {
				c := count[o.Symbol]
				c[1]++
				count[o.Symbol] = c
			}
		}
		if len(count) == 0 {
			d.rep.add(OK, topic, "", "none on the symbols the rules touch")
			continue
		}
		syms := make([]string, 0, len(count))
		for s := range count {
			syms = append(syms, s)
		}
		slices.Sort(syms)
		var parts []string
		for _, s := range syms {
			c := count[s]
			parts = append(parts, fmt.Sprintf("%s: %s, %s", s, plural(c[0], "position"), plural(c[1], "open order")))
		}
		d.rep.add(Warn, topic, "the rules see these from the first tick and may close or cancel them; close or cancel them first if the rules should start flat",
			"%s", strings.Join(parts, "; "))
	}
}

// openOrders reads the live and the partially filled orders of pt, one
// query per state: the live venue documents orders-pending without a
// state as answering the live ones only.
func (d *run) openOrders(ctx context.Context, pt exchange.ProductType) ([]exchange.PendingOrder, error) {
	var out []exchange.PendingOrder
	seen := map[string]bool{}
	for _, st := range []exchange.OrderState{exchange.StateLive, exchange.StatePartiallyFilled} {
		page, err := d.v.PendingOrders(ctx, exchange.PendingOrdersRequest{ProductType: pt, Status: st})
		if err != nil {
			return nil, err
		}
		for _, o := range page.EntrustedList {
			if !seen[o.OrderID] {
				seen[o.OrderID] = true
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// shortError is the error without the operation's own prefix noise; it
// keeps the venue's code and message, which the fix hints refer to.
func shortError(err error) string {
	var api *exchange.APIError
	if errors.As(err, &api) {
		return fmt.Sprintf("%s %s", api.Code, api.Msg)
	}
	return err.Error()
}
