package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/internal/racetest"
)

// readmeBuildTimeout bounds the build in a fresh clone: the project's
// packages compile again there (the build cache keys them by folder), about
// a minute on two idle cores with the module cache warm, much longer on a
// busy machine.
const readmeBuildTimeout = 10 * time.Minute

// TestReadmeBuildFromAFreshClone follows README.md "Start here" as a new
// user does: a git clone of this repository in a fresh folder, the README's
// own build command, then the binary it built (bin/engine version). It
// checks the committed tree, as a clone gets it. It compiles every package
// again, so it skips under -short and -race; .ci/run runs it without -race.
func TestReadmeBuildFromAFreshClone(t *testing.T) {
	if testing.Short() || racetest.Enabled {
		t.Skip("compiles the whole project in a fresh clone: run without -short and -race (.ci/run does)")
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	build := readmeCommand(t, "go build ")
	if !strings.Contains(build, "-o bin/engine") {
		t.Fatalf("README's build command %q does not write bin/engine, which every page runs", build)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readmeBuildTimeout)
	defer cancel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "tickrules")
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		// A new user's environment: the README's GOTOOLCHAIN, and the go
		// command's default for VCS stamping (a clone is a git checkout).
		// It is named, not left empty, because an empty GOFLAGS falls back
		// to the user's go env file, which on some machines (this
		// workplace's among them) turns stamping off.
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=go1.27.3", "GOFLAGS=-buildvcs=auto")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run(root, gitPath, "clone", "--quiet", root, clone)
	head := strings.TrimSpace(run(clone, gitPath, "rev-parse", "HEAD"))
	words := strings.Fields(build)
	run(clone, words[0], words[1:]...)
	got := run(clone, filepath.Join(clone, "bin", "engine"), "version")
	if !strings.HasPrefix(got, "engine ") || !strings.Contains(got, "commit "+head) {
		t.Errorf("bin/engine version in the clone printed %q; want the clone's commit %s", got, head)
	}
}

// readmeCommand returns the first command of README.md's "Start here"
// block that starts with prefix, without its comment.
func readmeCommand(t *testing.T, prefix string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, start, ok := strings.Cut(string(b), "## Start here")
	if !ok {
		t.Fatal(`README.md has no "## Start here"`)
	}
	for _, line := range strings.Split(start, "\n") {
		if strings.HasPrefix(line, prefix) {
			cmd, _, _ := strings.Cut(line, "#")
			return strings.TrimSpace(cmd)
		}
	}
	t.Fatalf("README.md's Start here has no command starting %q", prefix)
	return ""
}
