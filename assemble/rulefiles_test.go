package assemble

import (
	"os"
	"path/filepath"
	"testing"
)

// writeRules writes body as r.yaml into dir (a new temporary directory when
// dir is "") and returns the directory.
func writeRules(tb testing.TB, dir, body string) string {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(body), 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir
}
