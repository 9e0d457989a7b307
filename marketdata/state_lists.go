package marketdata

// AllOrders returns every pending order of the State, sorted by symbol and
// then age (oldest first), for displays such as the status page; rules read
// orders per symbol through Orders.
func (s *State) AllOrders() []*Order { return s.orders[:len(s.orders):len(s.orders)] }

// AllStrategyOrders returns every pending strategy order of the State,
// sorted by symbol.
func (s *State) AllStrategyOrders() []*StrategyOrder {
	return s.strategy[:len(s.strategy):len(s.strategy)]
}

// Balances returns the futures accounts of the State, one per product type
// and margin coin, in the order fetched.
func (s *State) Balances() []*Balance { return s.balances[:len(s.balances):len(s.balances)] }
