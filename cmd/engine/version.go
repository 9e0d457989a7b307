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
	fmt.Fprintln(env.stdout, versionText(info))
	return exitOK
}

// versionText is one line: "engine VERSION (commit REV[, modified],
// built from source at TIME, GO, OS/ARCH)". VERSION is the module version
// of a `go install module@version` build and "(devel)" in a checkout; the
// commit comes from the VCS stamp the go command embeds when building in a
// git checkout, "unknown" without one (go run, -buildvcs=false).
func versionText(info *debug.BuildInfo) string {
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
