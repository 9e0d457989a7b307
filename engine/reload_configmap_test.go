package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rules"
)

// configMapVersion lays out a Kubernetes ConfigMap volume the way the
// kubelet updates it: the files in a timestamped folder, ..data a symlink
// to it, and each key a symlink through ..data; an update writes a new
// folder and swaps ..data.
func configMapVersion(t *testing.T, dir, version string, files map[string]string) {
	t.Helper()
	ts := filepath.Join(dir, "..2026_11_28_"+version)
	if err := os.Mkdir(ts, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ts, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(ts), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
}

// TestConfigMapUpdateReloads: rules mounted from a Kubernetes ConfigMap
// (deploy/kubernetes) load once each, and an update of the ConfigMap
// changes what the reload watcher sees, so the engine loads the new rules.
func TestConfigMapUpdateReloads(t *testing.T) {
	dir := t.TempDir()
	configMapVersion(t, dir, "1", map[string]string{"r.yaml": "rules:\n  - name: r\n    when: now_ms > 0\n    actions:\n      - log: {message: hi}\n"})
	before := fingerprint([]string{dir})
	if again := fingerprint([]string{dir}); again != before {
		t.Fatal("the fingerprint changed with nothing changed")
	}
	rs, errs := rules.Load(context.Background(), []string{dir}, rules.LoadOptions{Actions: actions.Defs()})
	if rs == nil || len(rs.Rules) != 1 {
		t.Fatalf("loaded %v (%v), want the one rule once (the kubelet's folders are not read)", rs, errs)
	}
	configMapVersion(t, dir, "2", map[string]string{"r.yaml": "rules:\n  - name: r\n    when: now_ms > 1\n    actions:\n      - log: {message: hi}\n"})
	if fingerprint([]string{dir}) == before {
		t.Error("an update of the ConfigMap left the fingerprint as it was: the engine would not reload")
	}
	rs, errs = rules.Load(context.Background(), []string{dir}, rules.LoadOptions{Actions: actions.Defs()})
	if rs == nil || len(rs.Rules) != 1 || rs.Rules[0].When != "now_ms > 1" {
		t.Fatalf("after the update loaded %v (%v), want the new rule", rs, errs)
	}
}
