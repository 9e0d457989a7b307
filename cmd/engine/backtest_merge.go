package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tickrules/tickrules/backtest"
)

// finishShard writes the shard.json of a sweep's shard, which engine
// backtest merge reads, in place of the comparison: one shard cannot
// compare the variants it did not run.
func finishShard(env *cliEnv, cfg *backtestConfig, res *backtest.SweepResult) int {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	if err := res.WriteShard(cfg.out, cfg.shard); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(env.stdout, "shard %s: %d variants; wrote a report per variant under %s/ and %s/%s; put the shards together with engine backtest merge --out DIR SHARD_DIR...\n",
		cfg.shard, len(res.Variants), cfg.out, cfg.out, backtest.ShardFile)
	return exitOK
}

// cmdBacktestMerge puts the shards of a sweep together: every variant's
// report in --out, and the same compare.html and table a single run of the
// sweep gives.
func cmdBacktestMerge(env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine backtest merge", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	out := fs.String("out", "backtest-report", "`dir` to write the merged sweep to: a folder per variant and compare.html")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine backtest merge --out DIR SHARD_DIR...")
		fmt.Fprintln(fs.Output(), "\nPuts together the output directories of every shard of a sweep (engine backtest --vary ...")
		fmt.Fprintln(fs.Output(), "--shard K/N --out SHARD_DIR): DIR gets every variant's report and the compare.html a single")
		fmt.Fprintln(fs.Output(), "run of the sweep writes, byte for byte.")
		fs.PrintDefaults()
	}
	dirs, code, stop := parseWithPaths(fs, args)
	if stop {
		return code
	}
	if len(dirs) == 0 {
		fmt.Fprintln(env.stderr, "engine backtest merge: name the output directory of every shard")
		return exitUsage
	}
	res, err := backtest.MergeShards(dirs, *out)
	if err == nil {
		err = res.WriteCompare(*out)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "engine backtest merge: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(env.stdout, "%d variants from %d shards; wrote a report per variant under %s/ and %s/%s\n", len(res.Variants), len(dirs), *out, *out, backtest.CompareFile)
	if err := res.WriteTable(env.stdout); err != nil {
		fmt.Fprintf(env.stderr, "engine backtest merge: %v\n", err)
		return exitFail
	}
	return exitOK
}
