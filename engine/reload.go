package engine

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/rules"
)

// Loader loads the rule set again; errors are every mistake found, rendered.
type Loader func(ctx context.Context) (*rules.RuleSet, error)

// WatchOptions configure Watch.
type WatchOptions struct {
	Dirs   []string
	Load   Loader
	Engine *Engine
	Clock  Clock
	Logger *zap.Logger
	// Every is how often the rule files are checked for changes (default 2s).
	Every time.Duration
	// Signal, when it delivers, forces a reload (SIGHUP).
	Signal <-chan os.Signal
	// OnResult is called after each reload attempt (tests, metrics).
	OnResult func(err error)
}

// Watch reloads the rules when a rule file changes or Signal fires, until
// ctx is done. A rule set with any error is rejected with all its errors
// logged, and the running rules stay as they are.
func Watch(ctx context.Context, opts WatchOptions) {
	if opts.Every <= 0 {
		opts.Every = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	last := fingerprint(opts.Dirs)
	for {
		select {
		case <-ctx.Done():
			return
		case <-opts.Signal:
			opts.Logger.Info("reload requested by signal")
		case <-opts.Clock.After(opts.Every):
			fp := fingerprint(opts.Dirs)
			if fp == last {
				continue
			}
			opts.Logger.Info("rule files changed; reloading")
		}
		last = fingerprint(opts.Dirs)
		rs, err := opts.Load(ctx)
		if err != nil {
			opts.Logger.Error("new rules rejected; the running rules stay", zap.Error(err))
		} else {
			opts.Engine.Reload(rs)
		}
		if opts.OnResult != nil {
			opts.OnResult(err)
		}
	}
}

// fingerprint hashes the names, sizes and modification times of the YAML
// files under dirs; any edit, addition or removal changes it.
func fingerprint(dirs []string) [32]byte {
	var lines []string
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil || de.IsDir() {
				return nil
			}
			if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" {
				return nil
			}
			if fi, err := de.Info(); err == nil {
				lines = append(lines, p+"\x00"+fi.ModTime().UTC().Format(time.RFC3339Nano)+"\x00"+strconv.FormatInt(fi.Size(), 10))
			}
			return nil
		})
	}
	sort.Strings(lines)
	return sha256.Sum256([]byte(strings.Join(lines, "\n")))
}
