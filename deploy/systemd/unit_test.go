// Package systemd holds the test of deploy/systemd/tickrules@.service.
package systemd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const unitFile = "tickrules@.service"

// TestUnitVerifies runs systemd-analyze verify on the unit. verify exits 0
// on unknown keys and bad values (it only warns), so any output fails the
// test too. It checks that ExecStart's binary exists: the unit is copied
// with the binary's path pointing at a stand-in, its only change.
func TestUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (apt-get install systemd); .ci/run installs it")
	}
	unit, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "engine")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const binary = "/usr/local/bin/engine"
	if !bytes.Contains(unit, []byte("ExecStart="+binary+" run ")) {
		t.Fatalf("ExecStart does not run %s run", binary)
	}
	path := filepath.Join(dir, unitFile)
	if err := os.WriteFile(path, bytes.ReplaceAll(unit, []byte(binary), []byte(stub)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, analyze, "verify", "--man=no", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}

	// The unit says what the issue asks of it, each as one line.
	for _, want := range []string{
		"Type=notify", "WatchdogSec=", "NotifyAccess=main", "Restart=on-failure",
		"LoadCredential=credentials:/etc/tickrules/%i/credentials", "Environment=TICKRULES_CREDENTIALS_FILE=%d/credentials",
		"StateDirectory=tickrules/%i", "--state-dir ${STATE_DIRECTORY}",
		"ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "DynamicUser=yes", "ProtectHome=yes",
	} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("the unit lacks %q", want)
		}
	}
	if strings.Contains(string(unit), "TICKRULES_API_SECRET") {
		t.Error("the unit names a secret variable: credentials go through LoadCredential only")
	}
}
