package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/backtest"
)

// filesUnder returns every file under dir by its path relative to dir.
func filesUnder(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBacktestShardsMerge runs a sweep of three sizes whole, and as two
// shards (--shard 0/2, 1/2) put together by engine backtest merge: the
// merged folder and the comparison table are the single run's.
func TestBacktestShardsMerge(t *testing.T) {
	t.Parallel()
	args := []string{"backtest", "--rules", "../../examples/rules", "--from", "2026-03-09T13:25:00Z", "--to", "2026-03-09T13:45:00Z",
		"--vary", "TSLA_DIP_SIZE=1,2,3", "--jobs", "2"}
	single := t.TempDir()
	code, singleOut, stderr := runCLI(t, append(args, "--out", single)...)
	if code != exitOK {
		t.Fatalf("single run: exit %d: %s", code, stderr)
	}
	var shards []string
	for _, k := range []string{"0/2", "1/2"} {
		dir := t.TempDir()
		code, stdout, stderr := runCLI(t, append(args, "--out", dir, "--shard", k)...)
		if code != exitOK || !strings.Contains(stdout, "shard "+k+":") {
			t.Fatalf("shard %s: exit %d: %s %s", k, code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, backtest.ShardFile)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, backtest.CompareFile)); err == nil {
			t.Errorf("shard %s wrote a comparison of only its own variants", k)
		}
		shards = append(shards, dir)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	code, mergeOut, stderr := runCLI(t, append([]string{"backtest", "merge", "--out", merged}, shards...)...)
	if code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	want, got := filesUnder(t, single), filesUnder(t, merged)
	if len(want) != 7 || len(got) != len(want) {
		t.Errorf("the single run wrote %d files, the merge %d; want 7 each", len(want), len(got))
	}
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s of the merge differs from the single run's", name)
		}
	}
	// The comparison table: everything after the first line (which says
	// how the reports were made) is the single run's.
	_, singleTable, _ := strings.Cut(singleOut, "\n")
	_, mergeTable, _ := strings.Cut(mergeOut, "\n")
	if !strings.HasPrefix(mergeOut, "3 variants from 2 shards") || mergeTable != singleTable || !strings.Contains(singleTable, "TSLA_DIP_SIZE=3") {
		t.Errorf("merge printed\n%s\nthe single run\n%s", mergeOut, singleOut)
	}
}

func TestBacktestShardFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"shard without vary", []string{"backtest", "--rules", smallRules, "--shard", "0/2"}, exitUsage, "--shard splits a sweep: give --vary too"},
		{"bad shard", []string{"backtest", "--rules", smallRules, "--vary", "STOP=1", "--shard", "2/2"}, exitUsage, "K from 0 to N-1"},
		{"merge without shards", []string{"backtest", "merge", "--out", "x"}, exitUsage, "name the output directory of every shard"},
		{"merge of a folder that is no shard", []string{"backtest", "merge", "--out", "x", "testdata"}, exitFail, "not the output of engine backtest --shard"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
