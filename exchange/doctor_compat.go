package exchange

// TEMPORARY (issue 13, doctor branch): the `live` branch adds PathFamily
// with these two values in its own file. engine doctor names the type in
// its venue interface, so it must exist here until that branch lands. At
// merge: delete this file together with cmd/engine/doctor_compat.go.

// PathFamily names the set of paths a venue serves the stock-pair
// operations on.
type PathFamily string

// The two path families of the stock-pair operations.
const (
	// PathsSpec is the spec's /api/v3/stock/market/... and
	// /api/v3/account/stock-... (engine sim).
	PathsSpec PathFamily = "spec"
	// PathsReality is the live venue's /api/v3/reality/market/... and
	// /api/v3/account/reality-....
	PathsReality PathFamily = "reality"
)
