package server

import (
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/sim"
)

// Backend is what the server needs of the simulated exchange: the venue and
// credentials behind an API key, and the public market data. The server
// declares it so that it can be tested with a fake; SimBackend adapts the
// simulator to it.
type Backend interface {
	// Account returns the venue of apiKey and its credentials; ok is false
	// for an unknown key.
	Account(apiKey string) (v exchange.Venue, auth AccountAuth, ok bool)
	// Public serves the operations that need no key.
	Public() exchange.Reader
}

// AccountAuth is what the server checks a signed request against
// (sim.AccountAuth). Secret and Passphrase never leave this package: they are
// not logged and not echoed in error messages.
type AccountAuth = sim.AccountAuth

// SimBackend serves x.
func SimBackend(x *sim.Exchange) Backend { return simBackend{x} }

type simBackend struct{ x *sim.Exchange }

func (b simBackend) Account(apiKey string) (exchange.Venue, AccountAuth, bool) {
	a, ok := b.x.Account(apiKey)
	if !ok {
		return nil, AccountAuth{}, false
	}
	auth, ok := b.x.Auth(apiKey)
	return a, auth, ok
}

func (b simBackend) Public() exchange.Reader { return b.x.Public() }
