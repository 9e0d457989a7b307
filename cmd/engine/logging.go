package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/status"
)

// newRunLogger logs to stderr: readable lines on a terminal, JSON otherwise.
func newRunLogger(env *cliEnv, format string) *zap.Logger {
	if format == "auto" {
		format = "json"
		if isTerminal(env.stderr) {
			format = "console"
		}
	}
	if format == "console" {
		return newCLILogger(env)
	}
	cfg := zap.NewProductionEncoderConfig()
	cfg.EncodeTime = zapcore.ISO8601TimeEncoder
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(cfg), zapcore.Lock(zapcore.AddSync(env.stderr)), zapcore.InfoLevel))
}

// isTerminal reports whether w is a terminal (a character device), where a
// person reads the log rather than a program.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newCLILogger logs human-readable lines to the command's stderr, with
// times in New York time beside UTC.
func newCLILogger(env *cliEnv, opts ...zap.Option) *zap.Logger {
	return newConsoleLogger(env, zapcore.InfoLevel, traderTime, opts...)
}

// newConsoleLogger logs human-readable lines at level and above to the
// command's stderr, with times written by stamp.
func newConsoleLogger(env *cliEnv, level zapcore.Level, stamp zapcore.TimeEncoder, opts ...zap.Option) *zap.Logger {
	cfg := zap.NewDevelopmentEncoderConfig()
	cfg.EncodeTime = stamp
	cfg.EncodeLevel = zapcore.CapitalLevelEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(cfg), zapcore.Lock(zapcore.AddSync(env.stderr)), level)
	return zap.New(core, opts...)
}

// traderTime writes t as "2026-03-09 10:30:00 EDT 14:30:00Z": the market's
// time first, UTC beside it.
func traderTime(t time.Time, enc zapcore.PrimitiveArrayEncoder) {
	enc.AppendString(t.In(status.NewYork()).Format("2006-01-02 15:04:05 MST") + " " + t.UTC().Format("15:04:05Z"))
}

// traderTimeMillis is traderTime to the millisecond, "2026-03-09 10:30:00.125
// EDT 14:30:00.125Z": engine sim logs with it, where requests a few
// milliseconds apart (an order and the poll that sees it) must be told
// apart.
func traderTimeMillis(t time.Time, enc zapcore.PrimitiveArrayEncoder) {
	enc.AppendString(t.In(status.NewYork()).Format("2006-01-02 15:04:05.000 MST") + " " + t.UTC().Format("15:04:05.000Z"))
}

// logClock stamps log lines with the venue's clock, so that a run on the
// embedded simulator logs the simulated market time the rules see.
type logClock struct{ c interface{ Now() time.Time } }

func (l logClock) Now() time.Time                         { return l.c.Now() }
func (l logClock) NewTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }

// logOrder writes one line per order or other request of a firing: rule,
// symbol, side, intent, size, price and client order id.
func logOrder(log *zap.Logger, o status.OrderRecord) {
	price := o.Price
	if price == "" && o.Type == "market" {
		price = "market"
	}
	fields := []zap.Field{zap.String("rule", o.Rule), zap.String("symbol", o.Symbol), zap.String("side", o.Side),
		zap.String("intent", o.Intent), zap.String("size", o.Size), zap.String("price", price),
		zap.String("clientOid", o.ClientOID)}
	if o.OrderID != "" {
		fields = append(fields, zap.String("orderId", o.OrderID))
	}
	switch o.Outcome {
	case actions.OK:
		log.Info("order sent", fields...)
	case actions.Blocked:
		log.Warn("order blocked by a risk guard", append(fields, zap.String("reason", o.Error))...)
	default:
		log.Error("order failed", append(fields, zap.String("error", o.Error))...)
	}
}

// logFill writes one line per fill.
func logFill(log *zap.Logger, f status.FillRecord) {
	fields := []zap.Field{zap.String("rule", f.Rule), zap.String("symbol", f.Symbol), zap.String("side", f.Side),
		zap.String("size", f.Size), zap.String("price", f.Price), zap.String("fee", f.Fee)}
	if f.Profit != "0" && f.Profit != "" {
		fields = append(fields, zap.String("realized_pnl", f.Profit))
	}
	fields = append(fields, zap.String("orderId", f.OrderID), zap.Time("filled_at", f.At))
	log.Info("fill", fields...)
}

// logSummary writes what the engine did since it started, when it stops:
// firings, orders, fills and the open positions, then the P&L of each
// account.
func logSummary(log *zap.Logger, t status.Totals, positions []status.Position, accounts []status.Account) {
	open := make([]string, 0, len(positions))
	for _, p := range positions {
		open = append(open, fmt.Sprintf("%s %s %s", p.Symbol, p.Side, strconv.FormatFloat(p.Size, 'f', -1, 64)))
	}
	log.Info("engine stopped", zap.Int64("firings", t.Firings), zap.Int64("orders", t.Orders),
		zap.Int64("orders_failed", t.OrdersFailed), zap.Int64("orders_blocked", t.OrdersBlocked), zap.Int64("fills", t.Fills),
		zap.Strings("positions", open))
	for _, a := range accounts {
		log.Info("P&L since start", zap.String("account", a.ProductType+" "+a.MarginCoin),
			zap.String("start_equity", a.StartEquity.String()), zap.String("equity", a.Equity.String()),
			zap.String("change", a.Change.String()), zap.String("realized_pnl", a.Realized.String()),
			zap.String("fees", a.Fees.String()))
	}
}
