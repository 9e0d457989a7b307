package main

import (
	"context"
	"errors"
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "engine docs: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
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
