// Command vulndb turns a folder of OSV reports (the data/osv folder of the
// golang.org/x/vulndb module) into the v1 vulnerability database layout that
// govulncheck's -db file:///DIR reads: index/db.json, index/modules.json,
// index/vulns.json and ID/<id>.json. CI pins the vulndb module's version, so
// govulncheck runs offline against a database that changes only when the
// project moves the pin.
//
// Usage:
//
//	go run ./internal/tools/vulndb -osv DIR -out DIR
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	osvDir := flag.String("osv", "", "`folder` of OSV reports (*.json)")
	out := flag.String("out", "", "`folder` to write the database to (created; must be empty or absent)")
	flag.Parse()
	if *osvDir == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: vulndb -osv DIR -out DIR")
		os.Exit(2)
	}
	n, err := build(*osvDir, *out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vulndb: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("vulndb: %d reports written to %s\n", n, *out)
}

// entry is the part of an OSV report the indexes need.
type entry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
	} `json:"affected"`
}

// parseEntry decodes one OSV report and checks the fields the database is
// keyed by: an id usable as a file name and at least one affected module.
func parseEntry(b []byte) (entry, error) {
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		return e, err
	}
	if e.ID == "" || strings.ContainsAny(e.ID, `/\.`) || e.ID != filepath.Base(e.ID) {
		return e, fmt.Errorf("id %q: not a report id", e.ID)
	}
	if len(e.Affected) == 0 {
		return e, errors.New("no affected module")
	}
	for _, a := range e.Affected {
		if a.Package.Name == "" {
			return e, errors.New("an affected package has no name")
		}
	}
	return e, nil
}

// vulnMeta is one item of index/vulns.json.
type vulnMeta struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
}

// moduleVuln is one vulnerability of a module in index/modules.json. Fixed
// is left out on purpose: govulncheck then reads every report of a module
// and decides from the report's own version ranges.
type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
}

type moduleMeta struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

// build writes the database for the reports in osvDir to out and returns
// how many reports it holds.
func build(osvDir, out string) (int, error) {
	names, err := filepath.Glob(filepath.Join(osvDir, "*.json"))
	if err != nil {
		return 0, err
	}
	if len(names) == 0 {
		return 0, fmt.Errorf("%s: no OSV reports (*.json)", osvDir)
	}
	for _, d := range []string{"index", "ID"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return 0, err
		}
	}
	var (
		vulns    []vulnMeta
		modules  = map[string]*moduleMeta{}
		modified time.Time
	)
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return 0, err
		}
		e, err := parseEntry(b)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, "ID", e.ID+".json"), b, 0o644); err != nil {
			return 0, err
		}
		vulns = append(vulns, vulnMeta{ID: e.ID, Modified: e.Modified, Aliases: e.Aliases})
		if e.Modified.After(modified) {
			modified = e.Modified
		}
		for _, a := range e.Affected {
			m := modules[a.Package.Name]
			if m == nil {
				m = &moduleMeta{Path: a.Package.Name}
				modules[a.Package.Name] = m
			}
			if !slices.ContainsFunc(m.Vulns, func(v moduleVuln) bool { return v.ID == e.ID }) {
				m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified})
			}
		}
	}
	slices.SortFunc(vulns, func(a, b vulnMeta) int { return strings.Compare(a.ID, b.ID) })
	mods := make([]*moduleMeta, 0, len(modules))
	for _, m := range modules {
		slices.SortFunc(m.Vulns, func(a, b moduleVuln) int { return strings.Compare(a.ID, b.ID) })
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b *moduleMeta) int { return strings.Compare(a.Path, b.Path) })
	for file, v := range map[string]any{
		"db.json": struct {
			Modified time.Time `json:"modified"`
		}{modified},
		"modules.json": mods,
		"vulns.json":   vulns,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(out, "index", file), b, 0o644); err != nil {
			return 0, err
		}
	}
	return len(names), nil
}
