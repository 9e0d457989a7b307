//go:build unix

package rules_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"

	"github.com/tickrules/tickrules/rulefmt"
)

// TestLoadRefusesSpecialFiles: a named pipe or socket called *.yaml, in a
// rules directory or named alone, is reported with a plain message instead
// of blocking the load forever (a FIFO's open waits for a writer).
func TestLoadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("rules:\n  - name: r\n    when: now_ms > 0\n    actions:\n      - log: {message: hi}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sockDir := t.TempDir()
	sock := filepath.Join(sockDir, "sock.yaml")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer l.Close()
	tests := []struct {
		name  string
		paths []string
		file  string
		want  string
	}{
		{"FIFO in a rules directory", []string{dir}, fifo, "named pipe"},
		{"FIFO named alone", []string{fifo}, fifo, "named pipe"},
		{"socket named alone", []string{sock}, sock, "socket"},
		{"device named alone", []string{os.DevNull}, os.DevNull, "device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan rulefmt.Errors, 1)
			go func() {
				_, errs := rules.Load(context.Background(), tt.paths, rules.LoadOptions{Actions: actions.Defs()})
				done <- errs
			}()
			var errs rulefmt.Errors
			select {
			case errs = <-done:
			case <-time.After(10 * time.Second): // a bound on a hang, not a synchronisation
				t.Fatal("Load blocked on a special file")
			}
			found := false
			for _, e := range errs {
				if e.File == tt.file && strings.Contains(e.Message, "not a regular file but") && strings.Contains(e.Message, tt.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no plain finding for %s: %v", tt.file, errs)
			}
		})
	}
}
