package status

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints s for a terminal: a header, then one table per
// section, times in New York time.
func WriteTable(w io.Writer, s Snapshot) error {
	p := &printer{w: w}
	mode := ""
	if s.DryRun {
		mode = " (DRY RUN)"
	}
	p.line("tickrules on %s%s", s.Venue, mode)
	p.line("now %s (%s), started %s, last tick %s, %d ticks", clockNY(s.Time), clockUTC(s.Time), clockNY(s.Started), clockNY(s.Engine.LastTick), s.Engine.Ticks)
	ready := "data complete"
	if !s.Engine.Ready {
		ready = "waiting for the first full poll: no rule fires yet"
	}
	kill := "off"
	if s.KillSwitch.On {
		kill = "ON (" + s.KillSwitch.Reason + "): no new orders"
	}
	p.line("%s; kill switch %s", ready, kill)
	if h := s.Health; h != nil {
		p.line("health: %s; readiness: %s", probeText(h.Live), probeText(h.Ready))
	}
	if s.Engine.Busy {
		p.line("the engine is busy (a tick is still sending orders): the rules are as of its last answer")
	}
	t := s.Totals
	p.line("since start: %d firings, %d orders sent, %d failed, %d blocked by guards, %d fills", t.Firings, t.Orders, t.OrdersFailed, t.OrdersBlocked, t.Fills)

	p.section("RULES", "RULE\tPHASE\tWHY NOT FIRING\tNEXT POSSIBLE FIRING\tLAST EVALUATED\tFIRINGS")
	for _, r := range s.Rules {
		next := r.Next
		if !r.NextAt.IsZero() {
			next += " (" + clockNY(r.NextAt) + ")"
		}
		p.row(r.Name, phaseText(r), r.Why, next, clockNY(r.LastEvaluated), fmt.Sprint(r.Firings))
	}
	p.section("ACCOUNTS", "ACCOUNT\tEQUITY\tAVAILABLE\tUNREALISED\tSINCE START\tREALISED\tFEES")
	for _, a := range s.Accounts {
		p.row(a.ProductType+" "+a.MarginCoin, a.Equity.String(), a.Available.String(), a.UnrealizedPnL.String(), signed(a.Change.String()), a.Realized.String(), a.Fees.String())
	}
	p.section("POSITIONS", "SYMBOL\tSIDE\tSIZE\tENTRY\tMARK\tUNREALISED")
	for _, x := range s.Positions {
		p.row(x.Symbol, x.Side, number(x.Size), number(x.EntryPrice), number(x.MarkPrice), number(x.UnrealizedPnL)+" "+x.MarginCoin)
	}
	p.section("OPEN ORDERS", "SYMBOL\tSIDE\tINTENT\tTYPE\tPRICE\tSIZE\tFILLED\tRULE\tCLIENT ORDER ID")
	for _, o := range s.Orders {
		p.row(o.Symbol, o.Side, o.Intent, o.Type, number(o.Price), number(o.Size), number(o.Filled), o.Rule, o.ClientOID)
	}
	p.section("STRATEGY ORDERS", "SYMBOL\tTYPE\tSIDE\tSIZE\tTRIGGER\tTAKE PROFIT\tSTOP LOSS\tSTATUS")
	for _, o := range s.StrategyOrders {
		p.row(o.Symbol, o.Type, o.Side, number(o.Size), optionalPrice(o.TriggerPrice), optionalPrice(o.TakeProfit), optionalPrice(o.StopLoss), o.Status)
	}
	p.section("RECENT ORDERS", "TIME\tRULE\tSYMBOL\tINTENT\tSIZE\tPRICE\tOUTCOME\tCLIENT ORDER ID")
	for _, o := range s.Sent {
		out := string(o.Outcome)
		if o.Error != "" {
			out += ": " + o.Error
		}
		p.row(clockNY(o.At), o.Rule, o.Symbol, o.Intent, o.Size, priceText(o.Price), out, o.ClientOID)
	}
	p.section("RECENT FILLS", "TIME\tRULE\tSYMBOL\tSIDE\tSIZE\tPRICE\tFEE\tREALISED")
	for _, f := range s.Fills {
		p.row(clockNY(f.At), f.Rule, f.Symbol, f.Side, f.Size, f.Price, f.Fee, f.Profit)
	}
	p.section("DATA", "PART\tEVERY\tLAST POLL\tAGE\tHEALTH")
	for _, h := range s.Polls {
		health := "fresh"
		if h.Stale {
			health = "STALE"
		}
		p.row(h.Part, h.Interval, clockNY(h.LastPoll), fmt.Sprintf("%.1fs", h.AgeSeconds), health)
	}
	p.flush()
	return p.err
}

// WriteRule prints one rule and its recent evaluations, newest last
// (engine why).
func WriteRule(w io.Writer, d RuleDetail) error {
	p := &printer{w: w}
	p.line("%s: %s", d.Name, d.Why)
	if d.Description != "" {
		p.line("  %s", d.Description)
	}
	if d.File != "" {
		p.line("  defined at %s", d.File)
	}
	p.line("  when: %s", d.When)
	timing := []string{}
	if d.For != "" {
		timing = append(timing, "for "+d.For)
	}
	if d.Cooldown != "" {
		timing = append(timing, "cooldown "+d.Cooldown)
	}
	if d.Once != "" {
		timing = append(timing, "once "+string(d.Once))
	}
	if len(timing) > 0 {
		p.line("  timing: %s", strings.Join(timing, ", "))
	}
	p.line("  phase %s since %s; fired %d times, last %s", phaseText(d.Rule), clockNY(d.Since), d.Firings, clockNY(d.LastFired))
	next := d.Next
	if !d.NextAt.IsZero() {
		next += " (" + clockNY(d.NextAt) + ")"
	}
	p.line("  next possible firing: %s", next)
	if len(d.Values) > 0 {
		p.line("  the condition read (last tick):")
		for _, l := range strings.Split(valuesText(d.Values), "\n") {
			p.line("    %s", l)
		}
	}
	p.section("RECENT EVALUATIONS (oldest first)", "TIME\tRESULT\tPHASE\tREASON\tDETAIL")
	for _, t := range d.Traces {
		detail := t.Detail
		if t.Transition != "" {
			detail = strings.TrimSpace(t.Transition + " " + detail)
		}
		p.row(clockNY(t.At)+" "+clockUTC(t.At), fmt.Sprint(t.Result), shownPhase(t.Phase, t.Reason), string(t.Reason), detail)
		if len(t.Values) > 0 {
			p.row("", "", "", "", strings.ReplaceAll(valuesText(t.Values), "\n", "; "))
		}
	}
	p.flush()
	return p.err
}

// printer writes lines and tab-aligned sections, keeping the first error.
type printer struct {
	w   io.Writer
	tw  *tabwriter.Writer
	n   int // rows in the current section
	err error
}

func (p *printer) line(format string, args ...any) {
	p.flush()
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) section(title, header string) {
	p.flush()
	p.line("\n%s", title)
	p.tw = tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	p.n = 0
	p.row(strings.Split(header, "\t")...)
	p.n = 0
}

func (p *printer) row(cells ...string) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.tw, strings.Join(cells, "\t"))
	}
	p.n++
}

func (p *printer) flush() {
	if p.tw == nil {
		return
	}
	if p.n == 0 && p.err == nil {
		_, p.err = fmt.Fprintln(p.tw, "(none)")
	}
	if err := p.tw.Flush(); err != nil && p.err == nil {
		p.err = err
	}
	p.tw = nil
}

func priceText(p string) string {
	if p == "" {
		return "market"
	}
	return p
}

func signed(s string) string {
	if !strings.HasPrefix(s, "-") {
		return "+" + s
	}
	return s
}

// probeText is a probe in words: ok, or every reason it fails.
func probeText(p Probe) string {
	if p.OK {
		return "ok"
	}
	return "NOT OK (" + strings.Join(p.Reasons, "; ") + ")"
}
