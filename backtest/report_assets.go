package backtest

import _ "embed"

// chartLibrary is TradingView's Lightweight Charts, vendored in assets/
// (see assets/README.md) and inlined into report.html so that the page
// needs no network.
//
//go:embed assets/lightweight-charts.standalone.production.js
var chartLibrary string

// pageScript draws report.html's charts from the page's data with the
// library; it is the project's own (assets/report.js).
//
//go:embed assets/report.js
var pageScript string

// chartLibraryVersion is the vendored library's version, named in the page.
const chartLibraryVersion = "5.2.1"
