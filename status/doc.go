// Package status shows what a running engine is doing and why: every rule's
// phase and the reason it does or does not fire, the account's positions and
// orders, the last firings, orders and fills, poll health, the kill switch
// and the P&L since the engine started. One Snapshot feeds the JSON API
// (/api/status, /api/rules/{name}), the self-refreshing page (/status) and
// the terminal commands engine status and engine why, which read the JSON.
//
// It is a package of its own, not part of engine/, because it joins what
// several packages keep (the engine's rules, the guard's kill switch, the
// pollers' parts, the venue's fills) and speaks HTTP and HTML; the code
// that trades stays free of both.
package status
