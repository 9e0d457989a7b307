package sim

// SetMemo turns the memo of the account queries on or off, so that tests
// can compare a memoised answer with one computed afresh.
func (x *Exchange) SetMemo(on bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.noMemo = !on
}

// FreshMarket builds the exchange's market again: its answers are computed
// afresh, whatever the exchange's market has memoised.
func (x *Exchange) FreshMarket() (Market, error) { return newMarket(x.sc, x.contracts) }

// SetMatchSkip turns on or off the skipping of matching steps that cannot
// fill anything, so that tests can compare runs with and without it.
func (x *Exchange) SetMatchSkip(on bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.noMatchSkip = !on
}

// MatchSkips is how many matching steps were skipped so far.
func (x *Exchange) MatchSkips() uint64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.matchSkips
}

// SetFixed turns on or off the integer arithmetic of the position and
// account answers (see fixed), so that tests can compare its answers with
// decimal's.
func (x *Exchange) SetFixed(on bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.noFixed = !on
}
