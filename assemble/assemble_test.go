package assemble

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/poll"
	"github.com/tickrules/tickrules/sim"
	"github.com/tickrules/tickrules/sim/simtest"
)

func TestNew(t *testing.T) {
	t.Parallel()
	sc := sim.Demo()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	x, v := simRig.Exchange, simRig.Virtual
	acct, _ := x.Account("demo-hedge-key")
	write := func(body string) string { return writeRules(t, "", body) }
	opts := func(dir string) Options {
		return Options{Reader: acct, Catalog: acct, Accounts: acct, Trader: acct, Pricer: acct, Clock: v, RuleDirs: []string{dir}}
	}
	ctx := context.Background()

	_, err := New(ctx, opts(write("rules:\n  - name: x\n    when: nonsense(\n")), engine.Options{})
	if !errors.Is(err, ErrBadRules) || !strings.Contains(err.Error(), "r.yaml") {
		t.Errorf("bad rules: %v, want ErrBadRules naming the file", err)
	}

	asm, err := New(ctx, opts(write(`
rules:
  - name: watch
    when: position("ETHUSDT", "long").size > 1000
    actions:
      - close_positions: {symbol: ETHUSDT}
`)), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if asm.Modes["USDT-FUTURES"] != "hedge_mode" || len(asm.Rules.Rules) != 1 || asm.Catalog == nil || asm.Guard == nil || asm.Load == nil {
		t.Errorf("assembly: modes %v, %d rules", asm.Modes, len(asm.Rules.Rules))
	}
	if tasks := strings.Join(asm.Poller.Tasks(), ";"); !strings.Contains(tasks, "positions USDT-FUTURES") {
		t.Errorf("poller tasks %q, want the positions of USDT-FUTURES", tasks)
	}
	if err := asm.Poller.PollDue(ctx); err != nil {
		t.Fatal(err)
	}
	if f := asm.Engine.Step(ctx, v.Now()); len(f) != 0 {
		t.Errorf("fired %d times on a flat account", len(f))
	}
	if tr := asm.Engine.Traces("watch"); len(tr) != 1 || tr[0].Reason == "" {
		t.Errorf("traces %+v", tr)
	}
}

// TestReloadRejectsWhatIsNotPolled: reloaded rules that read only what the
// pollers fetch are accepted; rules that read a part, a product type or a
// stock pair nobody polls are rejected with what is missing, so the running
// rules stay instead of new ones waiting forever for data.
func TestReloadRejectsWhatIsNotPolled(t *testing.T) {
	t.Parallel()
	sc := sim.Demo()
	simRig := simtest.NewRig(t, simtest.RigOptions{Scenario: sc})
	x, v := simRig.Exchange, simRig.Virtual
	acct, _ := x.Account("demo-key")
	dir := t.TempDir()
	write := func(when string) {
		t.Helper()
		writeRules(t, dir, "rules:\n  - name: r\n    when: "+when+"\n    actions:\n      - cancel_all: {}\n")
	}
	write(`position("TSLAUSDT", "long").size > 0 && stock("TSLA").bid > 0`)
	asm, err := New(context.Background(), Options{Reader: acct, Catalog: acct, Accounts: acct,
		Trader: acct, Pricer: acct, Clock: v, RuleDirs: []string{dir}}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		when    string
		missing string // "" when accepted
	}{
		{`position("NVDAUSDT", "short").size > 0`, ""},
		{`stock("TSLA").spread_bps > 5`, ""},
		{`balance("USDT").available > 0`, "not polled: balances"},
		{`position("BTCUSD", "long").size > 0`, "positions COIN-FUTURES"},
		{`stock("NVDA").bid > 0`, "stock_book NVDAUSDT"},
	}
	for _, tt := range tests {
		t.Run(tt.when, func(t *testing.T) {
			write(tt.when)
			rs, err := asm.Load(context.Background())
			switch {
			case tt.missing == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tt.missing == "" && len(rs.Rules) != 1:
				t.Fatalf("accepted %d rules", len(rs.Rules))
			case tt.missing != "" && (!errors.Is(err, poll.ErrNotPolled) || !strings.Contains(err.Error(), tt.missing) || !strings.Contains(err.Error(), "restart")):
				t.Fatalf("error %v: want ErrNotPolled naming %q and saying to restart", err, tt.missing)
			}
		})
	}
}
