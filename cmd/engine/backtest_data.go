package main

import (
	"flag"

	"github.com/tickrules/tickrules/backtest"
	"github.com/tickrules/tickrules/data"
	"github.com/tickrules/tickrules/exchange"
)

// historyFlags are the flags of engine backtest --data: a backtest on the
// history stored by engine data download.
type historyFlags struct {
	dir      string
	symbols  string
	interval string
	product  string
}

// register adds the flags to fs.
func (h *historyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.dir, "data", "", "replay the history stored in `dir` by engine data download (needs --from and --to)")
	fs.StringVar(&h.symbols, "symbols", "", "with --data: the `symbols` to replay (comma-separated); default: every stored symbol of the demo scenario's contracts")
	fs.StringVar(&h.interval, "interval", "1m", "with --data: the stored candles' `interval`")
	fs.StringVar(&h.product, "product", string(exchange.USDTFutures), "with --data: the symbols' product `type`")
}

// check returns what is wrong with the flags given with --data (from and
// to are the text of --from and --to).
func (h *historyFlags) check(c *backtestConfig, from, to string) []string {
	if h.dir == "" {
		if h.symbols != "" {
			return []string{"--symbols picks the symbols of --data: give --data too"}
		}
		return nil
	}
	var problems []string
	if c.scenario != "" || c.recording != "" {
		problems = append(problems, "give one of --scenario, --recording and --data")
	}
	if from == "" || to == "" {
		problems = append(problems, "--data needs --from and --to (see engine data list for what is stored)")
	}
	if _, err := data.ParseInterval(h.interval); err != nil {
		problems = append(problems, "--interval "+err.Error())
	}
	return problems
}

// historySource loads the stored history once; every run (each variant of
// a sweep) gets a fresh scenario built from it.
func historySource(cfg *backtestConfig) (func(*backtest.Options) error, error) {
	h, err := backtest.LoadHistory(backtest.HistoryOptions{Dir: cfg.history.dir, Product: exchange.ProductType(cfg.history.product),
		Interval: exchange.Granularity(cfg.history.interval), Symbols: splitList(cfg.history.symbols), From: cfg.from, To: cfg.to})
	if err != nil {
		return nil, err
	}
	return h.Apply, nil
}
