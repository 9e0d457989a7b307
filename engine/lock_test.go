package engine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirLockReset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	for _, name := range []string{stateFile, journalFile, "sub/x"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Reset(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != lockFile {
		t.Fatalf("after Reset the directory holds %v, want only the lock", entries)
	}
	// The lock still holds: a second engine is refused.
	if _, err := LockDir(dir); err == nil {
		t.Fatal("a second lock was granted after Reset")
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l.Reset(); err == nil {
		t.Fatal("Reset after Unlock succeeded")
	}
}
