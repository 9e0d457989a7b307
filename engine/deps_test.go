package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLiveCodeImportsNoBacktestCode: the packages that trade money (the
// engine, the poller, the actions, and the wiring of a run in assemble) do
// not depend on any package of the
// backtest - its compiled conditions (backtest/internal/native), its
// sources and runner - directly or through another package, so that
// engine run evaluates every condition plainly, on expr's VM, and a
// backtest-only speed-up cannot reach it.
func TestLiveCodeImportsNoBacktestCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const module = "github.com/tickrules/tickrules/"
	cmd := exec.CommandContext(t.Context(), "go", "list", "-deps", module+"engine", module+"poll", module+"actions", module+"assemble")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var ours int
	for _, pkg := range strings.Fields(string(out)) {
		if !strings.HasPrefix(pkg, module) {
			continue
		}
		ours++
		if rel := strings.TrimPrefix(pkg, module); rel == "backtest" || strings.HasPrefix(rel, "backtest/") || strings.HasPrefix(rel, "rules/native") {
			t.Errorf("the live code depends on %s, which only the backtest may use", pkg)
		}
	}
	// The list must hold the packages asked about, or the test proves
	// nothing.
	if ours < 4 {
		t.Fatalf("go list -deps named %d packages of the module:\n%s", ours, out)
	}
}
