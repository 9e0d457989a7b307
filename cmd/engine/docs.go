package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tickrules/tickrules/rules"
)

// cmdDocs writes the generated reference of rule files: to --out (default
// docs/reference.md), or to stdout with --out -.
func cmdDocs(_ context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine docs", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	out := fs.String("out", "docs/reference.md", "`file` to write; - writes to stdout")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine docs [--out FILE]")
		fmt.Fprintln(fs.Output(), "\nWrites the reference of every variable, function, action and parameter of rule files.")
		fs.PrintDefaults()
	}
	if code, stop := parseFlagsOnly(env, fs, args, ""); stop {
		return code
	}
	ref := rules.Reference()
	if *out == "-" {
		if _, err := env.stdout.Write(ref); err != nil {
			return exitFail
		}
		return exitOK
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintf(env.stderr, "engine docs: %v\n", err)
		return exitFail
	}
	if err := os.WriteFile(*out, ref, 0o644); err != nil {
		fmt.Fprintf(env.stderr, "engine docs: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(env.stdout, "wrote %s\n", *out)
	return exitOK
}
