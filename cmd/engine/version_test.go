package main

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionText(t *testing.T) {
	t.Parallel()
	stamp := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		rel  release
		want string // a regular expression of the whole line
	}{
		{"installed release", &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "v1.2.0"},
			Settings: stamp("vcs.revision", "5904edb0c1d2", "vcs.time", "2026-11-25T14:00:00Z", "vcs.modified", "false")}, release{},
			`^engine v1\.2\.0 \(commit 5904edb0c1d2, committed 2026-11-25T14:00:00Z, go1\.27\.3, \w+/\w+\)$`},
		{"checkout with changes", &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "(devel)"},
			Settings: stamp("vcs.revision", "abc", "vcs.modified", "true")}, release{},
			`^engine \(devel\) \(commit abc, modified, go1\.27\.3, \w+/\w+\)$`},
		{"no VCS stamp", &debug.BuildInfo{GoVersion: "go1.27.3"}, release{}, `^engine \(devel\) \(commit unknown, go1\.27\.3, \w+/\w+\)$`},
		{"no build info", nil, release{}, `^engine \(unknown\) \(commit unknown, go[^,]+, \w+/\w+\)$`},
		// A release build (.ci/release) links its version and commit in.
		{"release build", &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "(devel)"}},
			release{version: "v1.2.0-3-g5904edb", commit: "5904edb0c1d2"},
			`^engine v1\.2\.0-3-g5904edb \(commit 5904edb0c1d2, go1\.27\.3, \w+/\w+\)$`},
		{"release build in a changed checkout", &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "(devel)"},
			Settings: stamp("vcs.revision", "abc", "vcs.modified", "true")},
			release{version: "v1.2.0", commit: "5904edb0c1d2"},
			`^engine v1\.2\.0 \(commit 5904edb0c1d2, go1\.27\.3, \w+/\w+\)$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.info, tc.rel); !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("got %q, want %s", got, tc.want)
			}
		})
	}
}

func TestVersionCommandAndFlag(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^engine \S+ \(commit [^,]+(, [^,]+)*, go[^,]+, \w+/\w+\)\n$`)
	code, byCmd, _ := runCLI(t, "version")
	if code != exitOK || !shape.MatchString(byCmd) {
		t.Errorf("engine version: exit %d, %q", code, byCmd)
	}
	code, byFlag, _ := runCLI(t, "--version")
	if code != exitOK || byFlag != byCmd {
		t.Errorf("engine --version: exit %d, %q, want %q", code, byFlag, byCmd)
	}
	if code, _, _ := runCLI(t, "version", "extra"); code != exitUsage {
		t.Errorf("engine version extra: exit %d", code)
	}
	if _, help, _ := runCLI(t, "help"); !strings.Contains(help, "version ") {
		t.Errorf("help does not list version:\n%s", help)
	}
}
