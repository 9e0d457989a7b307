package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// cmdVersion prints the module version and the commit the binary was
// built from (engine version, engine --version).
func cmdVersion(_ context.Context, env *cliEnv, args []string) int {
	fs := flag.NewFlagSet("engine version", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: engine version")
		fmt.Fprintln(fs.Output(), "\nPrints the version and the source commit of this engine binary; quote it in bug reports.")
	}
	if code, stop := parseFlagsOnly(env, fs, args, ""); stop {
		return code
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(env.stdout, versionText(info, release{version: linkedVersion, commit: linkedCommit}))
	return exitOK
}

// linkedVersion and linkedCommit are written by the linker in a release
// build (.ci/release: -ldflags "-X main.linkedVersion=v1.2.0 -X
// main.linkedCommit=5904edb..."), which is built with -trimpath and may run
// where the go command cannot stamp the commit itself. Only the linker sets
// them; the program never changes them.
var linkedVersion, linkedCommit string

// release is the version and commit a release build was linked with; empty
// in any other build.
type release struct{ version, commit string }

// versionText is one line: "engine VERSION (commit REV[, modified],
// built from source at TIME, GO, OS/ARCH)". VERSION is the release's, else
// the module version of a `go install module@version` build and "(devel)"
// in a checkout; the commit is the release's, else the VCS stamp the go
// command embeds when building in a git checkout, "unknown" without one
// (go run, -buildvcs=false).
func versionText(info *debug.BuildInfo, rel release) string {
	version, goVersion := "(unknown)", runtime.Version()
	settings := map[string]string{}
	if info != nil {
		version = info.Main.Version
		if version == "" {
			version = "(devel)"
		}
		goVersion = info.GoVersion
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
	}
	if rel.version != "" {
		version = rel.version
	}
	if rel.commit != "" {
		// The release's own commit wins over a stamp of whatever
		// checkout it was built in.
		settings = map[string]string{"vcs.revision": rel.commit}
	}
	parts := []string{"commit unknown"}
	if rev := settings["vcs.revision"]; rev != "" {
		parts[0] = "commit " + rev
		if settings["vcs.modified"] == "true" {
			parts = append(parts, "modified")
		}
	}
	if t := settings["vcs.time"]; t != "" {
		parts = append(parts, "committed "+t)
	}
	parts = append(parts, goVersion, runtime.GOOS+"/"+runtime.GOARCH)
	return "engine " + version + " (" + strings.Join(parts, ", ") + ")"
}
