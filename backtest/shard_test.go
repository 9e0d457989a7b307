package backtest

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/sim"
)

func TestParseShard(t *testing.T) {
	cases := []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/1", Shard{0, 1}, ""},
		{"2/3", Shard{2, 3}, ""},
		{" 1 / 4 ", Shard{1, 4}, ""},
		{"3/3", Shard{}, "K from 0 to N-1"},
		{"-1/3", Shard{}, "K from 0 to N-1"},
		{"0/0", Shard{}, "N must be at least 1"},
		{"1", Shard{}, "write K/N"},
		{"a/b", Shard{}, "write K/N"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseShard(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %v %v, want %v", got, err, c.want)
			}
		})
	}
}

// TestShardsCoverEveryVariantOnce: for each N, the shards together hold
// every variant exactly once.
func TestShardsCoverEveryVariantOnce(t *testing.T) {
	all, err := Variants([]Vary{{"A", []string{"1", "2", "3"}}, {"B", []string{"x", "y"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 4, 7} {
		t.Run(Shard{0, n}.String(), func(t *testing.T) {
			seen := map[string]int{}
			for k := range n {
				for _, v := range (Shard{k, n}).pick(all) {
					seen[v.Name]++
				}
			}
			for _, v := range all {
				if seen[v.Name] != 1 {
					t.Errorf("%s is in %d shards", v.Name, seen[v.Name])
				}
			}
			if len(seen) != len(all) {
				t.Errorf("%d variants in the shards, want %d", len(seen), len(all))
			}
		})
	}
}

// readTree returns every file under dir by its path relative to dir.
func readTree(t *testing.T, dir string) map[string][]byte {
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

// TestMergedShardsEqualTheSingleRun runs a 3x2 sweep once whole, then as
// 1, 2 and 3 shards merged: every file of the merged output (each
// variant's report.json and report.html, and compare.html) is byte for
// byte the single run's.
func TestMergedShardsEqualTheSingleRun(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	rules := sweepRules(t, map[string][2]string{"cut-losses.yaml": {`unrealized_pnl_pct < -0.03`, `unrealized_pnl_pct < -${STOP}`}})
	from, to := demoStart.Add(25*time.Minute), demoStart.Add(60*time.Minute)
	vary := []Vary{{"STOP", []string{"0.001", "0.01", "0.03"}}, {"TSLA_DIP_SIZE", []string{"1", "2"}}}
	sweep := func(out string, sh Shard) *SweepResult {
		t.Helper()
		res, err := Sweep(context.Background(), SweepOptions{
			Base:    Options{RuleDirs: []string{rules}, From: from, To: to},
			Prepare: func(o *Options) error { o.Scenario = sim.Demo(); return nil },
			Vary:    vary, Jobs: 2, Out: out, Shard: sh,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	single := t.TempDir()
	if err := sweep(single, Shard{}).WriteCompare(single); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, single)
	if len(want) != 6*2+1 {
		t.Fatalf("the single run wrote %d files, want 13", len(want))
	}
	for _, n := range []int{1, 2, 3} {
		t.Run(Shard{0, n}.String(), func(t *testing.T) {
			var dirs []string
			for k := range n {
				dir := t.TempDir()
				res := sweep(dir, Shard{k, n})
				if len(res.Variants) != 6/n {
					t.Errorf("shard %d/%d ran %d variants, want %d", k, n, len(res.Variants), 6/n)
				}
				if err := res.WriteShard(dir, Shard{k, n}); err != nil {
					t.Fatal(err)
				}
				dirs = append(dirs, dir)
			}
			slices.Reverse(dirs) // the order they are given in does not matter
			out := t.TempDir()
			res, err := MergeShards(dirs, out)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.WriteCompare(out); err != nil {
				t.Fatal(err)
			}
			got := readTree(t, out)
			for name, w := range want {
				if g, ok := got[name]; !ok {
					t.Errorf("the merge lacks %s", name)
				} else if !bytes.Equal(g, w) {
					t.Errorf("%s differs from the single run:\n%s", name, firstDiff(g, w))
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("the merge wrote %s, which the single run does not", name)
				}
			}
		})
	}
}

// TestMergeShardsErrors: a missing shard, one given twice, or shards of
// different sweeps are refused, with what is wrong.
func TestMergeShardsErrors(t *testing.T) {
	shard := func(vary []Vary, sh Shard, variants ...string) string {
		t.Helper()
		dir := t.TempDir()
		res := &SweepResult{Vary: vary}
		for _, name := range variants {
			if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
			res.Variants = append(res.Variants, VariantResult{Variant: Variant{Name: name}})
		}
		if err := res.WriteShard(dir, sh); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	ab := []Vary{{"X", []string{"a", "b"}}}
	s0 := shard(ab, Shard{0, 2}, "X=a")
	s1 := shard(ab, Shard{1, 2}, "X=b")
	other := shard([]Vary{{"X", []string{"a", "c"}}}, Shard{1, 2}, "X=c")
	wrong := shard(ab, Shard{1, 2}, "X=a")
	cases := []struct {
		name string
		dirs []string
		err  string
	}{
		{"missing", []string{s0}, "shards 1/2 are missing"},
		{"twice", []string{s0, s0, s1}, "are both shard 0/2"},
		{"another sweep", []string{s0, other}, "shards of different sweeps"},
		{"wrong variants", []string{s0, wrong}, "does not hold variant X=b"},
		{"not a shard", []string{t.TempDir()}, "not the output of engine backtest --shard"},
		{"none", nil, "needs the output directories"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MergeShards(c.dirs, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want one with %q", err, c.err)
			}
		})
	}
	if _, err := MergeShards([]string{s1, s0}, t.TempDir()); err != nil {
		t.Errorf("the complete shards: %v", err)
	}
}

// FuzzMergeShards feeds any shard.json to the merge: it fails with an
// error or merges, and never panics or writes outside its output folder.
func FuzzMergeShards(f *testing.F) {
	f.Add([]byte(`{"version":1,"vary":[{"name":"X","values":["a","b"]}],"shard":0,"shards":1,"variants":[{"name":"X=a","values":["a"],"ticks":1,"accounts":[]},{"name":"X=b","values":["b"]}]}`))
	f.Add([]byte(`{"version":1,"vary":[{"name":"X","values":["a"]}],"shard":0,"shards":0,"variants":[]}`))
	f.Add([]byte(`{"version":1,"vary":[{"name":"../X","values":[".."]}],"shard":0,"shards":1,"variants":[{"name":"_.._X=.."}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		root := t.TempDir()
		in, out := filepath.Join(root, "in"), filepath.Join(root, "out")
		if err := os.Mkdir(in, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, ShardFile), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := MergeShards([]string{in}, out)
		if err != nil {
			return
		}
		if err := res.WriteCompare(out); err != nil {
			t.Fatal(err)
		}
		// Everything written is under out (or was already in root).
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if rel, _ := filepath.Rel(root, p); rel != "." && !strings.HasPrefix(rel, "in") && !strings.HasPrefix(rel, "out") {
				t.Errorf("the merge wrote %s, outside its folders", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
