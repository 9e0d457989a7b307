package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiveGuideCommands runs every engine command of docs/live.md, with
// the real exchange (--venue live|demo) replaced by engine sim on loopback
// and each run ended once the engine has started (runUntilStarted): each
// must be accepted and succeed. What the real exchange answers is not
// tested here; the flags, paths and files the guide tells a trader to use
// are.
func TestLiveGuideCommands(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "live.md"))
	if err != nil {
		t.Fatal(err)
	}
	var commands [][]string
	var safety string
	inBlock, lang := false, ""
	var block strings.Builder
	for _, line := range strings.Split(string(guide), "\n") {
		if strings.HasPrefix(line, "```") {
			if inBlock && lang == "yaml" && strings.Contains(block.String(), "kill_switch_file") {
				safety = block.String()
			}
			inBlock, lang = !inBlock, strings.TrimPrefix(line, "```")
			block.Reset()
			continue
		}
		if !inBlock {
			continue
		}
		block.WriteString(line + "\n")
		if lang == "sh" && strings.HasPrefix(line, "bin/engine ") {
			commands = append(commands, strings.Fields(strings.TrimPrefix(line, "bin/engine ")))
		}
	}
	if len(commands) < 5 || safety == "" {
		t.Fatalf("found %d commands and safety file %q in the guide", len(commands), safety)
	}
	dir := t.TempDir()
	safetyPath := filepath.Join(dir, "safety.yaml")
	if err := os.WriteFile(safetyPath, []byte(strings.ReplaceAll(safety, "/tmp/tickrules-stop", filepath.Join(dir, "stop"))), 0o600); err != nil {
		t.Fatal(err)
	}
	venueURL := wallClockSim(t)
	env := demoCreds("demo-key")
	for _, args := range commands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			args = append([]string(nil), args...)
			for i := range args {
				switch {
				case i > 0 && args[i-1] == "--venue":
					args[i] = venueURL
				case i > 0 && args[i-1] == "--max-runtime":
					args[i] = "1m" // a bound on a run that never starts
				case args[i] == "examples/rules":
					args[i] = filepath.Join("..", "..", "examples", "rules")
				case args[i] == "safety.yaml":
					args[i] = safetyPath
				}
			}
			if args[0] == "run" {
				code, stderr := runUntilStarted(t, env, append(args[1:], "--state-dir", t.TempDir(), "--tick", "100ms", "--log-format", "json")...)
				if code != exitOK {
					t.Errorf("exit %d\nstderr:\n%s", code, stderr)
				}
				return
			}
			var out, errb bytes.Buffer
			e := &cliEnv{stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
			if code := dispatch(context.Background(), e, args); code != exitOK {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
			}
		})
	}
}
