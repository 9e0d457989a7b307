package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	reportA = `{"id":"GO-2026-0002","modified":"2026-05-01T00:00:00Z","aliases":["CVE-2026-2"],"affected":[{"package":{"name":"stdlib"}},{"package":{"name":"toolchain"}}]}`
	reportB = `{"id":"GO-2026-0001","modified":"2026-04-01T00:00:00Z","affected":[{"package":{"name":"example.com/m"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.2.0"}]}]},{"package":{"name":"example.com/m"}}]}`
)

func TestParseEntry(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"report", reportA, ""},
		{"not JSON", "{", "unexpected end"},
		{"no id", `{"affected":[{"package":{"name":"m"}}]}`, "not a report id"},
		{"id escaping the folder", `{"id":"../x","affected":[{"package":{"name":"m"}}]}`, "not a report id"},
		{"no affected module", `{"id":"GO-1"}`, "no affected module"},
		{"unnamed package", `{"id":"GO-1","affected":[{"package":{}}]}`, "has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseEntry([]byte(tt.in))
			if (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseEntry = %v, want %q", err, tt.err)
			}
		})
	}
}

// TestBuild writes a database of two reports and reads back the layout
// govulncheck expects: the indexes sorted by id and path, one module entry
// per report even when a report names the module twice, and the reports
// themselves unchanged under ID/.
func TestBuild(t *testing.T) {
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "db")
	for name, body := range map[string]string{"a.json": reportA, "b.json": reportB, "notes.txt": "not a report"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	n, err := build(src, out)
	if err != nil || n != 2 {
		t.Fatalf("build = %d, %v", n, err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for file, want := range map[string]string{
		"index/db.json":        `{"modified":"2026-05-01T00:00:00Z"}`,
		"index/vulns.json":     `[{"id":"GO-2026-0001","modified":"2026-04-01T00:00:00Z"},{"id":"GO-2026-0002","modified":"2026-05-01T00:00:00Z","aliases":["CVE-2026-2"]}]`,
		"index/modules.json":   `[{"path":"example.com/m","vulns":[{"id":"GO-2026-0001","modified":"2026-04-01T00:00:00Z"}]},{"path":"stdlib","vulns":[{"id":"GO-2026-0002","modified":"2026-05-01T00:00:00Z"}]},{"path":"toolchain","vulns":[{"id":"GO-2026-0002","modified":"2026-05-01T00:00:00Z"}]}]`,
		"ID/GO-2026-0001.json": reportB,
		"ID/GO-2026-0002.json": reportA,
	} {
		if got := read(file); got != want {
			t.Errorf("%s =\n%s\nwant\n%s", file, got, want)
		}
	}
	if _, err := build(t.TempDir(), filepath.Join(t.TempDir(), "db")); err == nil {
		t.Error("a folder without reports built a database")
	}
}

func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(reportA))
	f.Add([]byte(reportB))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := parseEntry(b)
		if err != nil {
			return
		}
		if e.ID != filepath.Base(e.ID) || strings.ContainsAny(e.ID, `/\.`) || len(e.Affected) == 0 {
			t.Fatalf("accepted %+v", e)
		}
		if _, err := json.Marshal(e); err != nil {
			t.Fatal(err)
		}
	})
}
