package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const secretMark = "s3cr3t-VALUE-never-printed"

func TestLoadCredentials(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good", "# mine\nTICKRULES_API_KEY=k1\nTICKRULES_API_SECRET=\""+secretMark+"\"\nTICKRULES_API_PASSPHRASE=p1\n", 0o600)
	loose := file("loose", "TICKRULES_API_KEY=k1\n", 0o644)
	bad := file("bad", "TICKRULES_API_SECRET "+secretMark+"\n", 0o600)
	typo := file("typo", "TICKRULES_API_SECRE="+secretMark+"\n", 0o600)

	tests := []struct {
		name    string
		env     map[string]string
		wantKey string
		wantErr string
	}{
		{"nothing configured", nil, "", ""},
		{"environment", map[string]string{envAPIKey: "k", envSecret: secretMark, envPassphrase: "p"}, "k", ""},
		{"environment incomplete", map[string]string{envAPIKey: "k"}, "", "TICKRULES_API_PASSPHRASE, TICKRULES_API_SECRET not set"},
		{"owner-only file", map[string]string{envCredsFile: good}, "k1", ""},
		{"file readable by others", map[string]string{envCredsFile: loose}, "", "chmod 600"},
		{"file with a bad line", map[string]string{envCredsFile: bad}, "", "line 1: want NAME=value"},
		{"file with a typo", map[string]string{envCredsFile: typo}, "", "unknown name; did you mean TICKRULES_API_SECRET?"},
		{"file and environment", map[string]string{envCredsFile: good, envAPIKey: "k"}, "", "not both"},
		{"missing file", map[string]string{envCredsFile: filepath.Join(dir, "nope")}, "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadCredentials(func(k string) string { return tt.env[k] }, os.Stat, os.ReadFile)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), secretMark) {
				t.Fatalf("error leaks the secret: %v", err)
			}
			if c.APIKey != tt.wantKey {
				t.Errorf("APIKey = %q, want %q", c.APIKey, tt.wantKey)
			}
		})
	}
	if _, err := loadCredentials(func(k string) string { return map[string]string{envCredsFile: loose}[k] }, os.Stat, os.ReadFile); !errors.Is(err, errLooseCredentialsFile) {
		t.Errorf("loose file error %v is not errLooseCredentialsFile", err)
	}
}

// TestLoadSecrets: notification secrets come from the environment first,
// then the credentials file, which may hold them beside the exchange's
// three; a name that is neither stays an error.
func TestLoadSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	both := filepath.Join(dir, "both")
	if err := os.WriteFile(both, []byte("TICKRULES_API_KEY=k\nTICKRULES_API_SECRET=s\nTICKRULES_API_PASSPHRASE=p\nTICKRULES_TELEGRAM_TOKEN="+secretMark+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("TELEGRAM_TOKEN="+secretMark+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{envCredsFile: both, "TICKRULES_SLACK_URL": "from-env"}
	getenv := func(k string) string { return env[k] }
	c, err := loadCredentials(getenv, os.Stat, os.ReadFile)
	if err != nil || c.APIKey != "k" {
		t.Fatalf("credentials %v, %v", c.APIKey, err)
	}
	secret, err := loadSecrets(getenv, os.Stat, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if secret("TICKRULES_TELEGRAM_TOKEN") != secretMark || secret("TICKRULES_SLACK_URL") != "from-env" || secret("TICKRULES_NONE") != "" {
		t.Error("lookup does not read the file after the environment")
	}
	env[envCredsFile] = other
	if _, err := loadSecrets(getenv, os.Stat, os.ReadFile); err == nil || !strings.Contains(err.Error(), "line 1: unknown name") || strings.Contains(err.Error(), secretMark) {
		t.Errorf("err = %v", err)
	}
}

// TestCredentialsErrorsHideSecrets: whatever shape a malformed line has, the
// error names the line and never shows any piece of the secret on it (no
// substring of 3 characters or more).
func TestCredentialsErrorsHideSecrets(t *testing.T) {
	t.Parallel()
	const secret = "qZ8x=W3vK9jT2mB6nYd4"
	tests := []struct{ name, body string }{
		{"secret alone on a line", secret + "\n"},
		{"secret without its name, no =", "qZ8xW3vK9jT2mB6nYd4\n"},
		{"secret with a colon instead of =", "TICKRULES_API_SECRET: " + secret + "\n"},
		{"secret after a misspelt name", "TICKRULES_API_SECERT=" + secret + "\n"},
		{"secret as the name", secret + "=x\n"},
		{"secret quoted without name", `"` + secret + `"` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseCredentials([]byte("TICKRULES_API_KEY=k1\n" + tt.body))
			if err == nil {
				t.Fatal("malformed line accepted")
			}
			msg := err.Error()
			for i := 0; i+3 <= len(secret); i++ {
				for j := i + 3; j <= len(secret); j++ {
					if strings.Contains(msg, secret[i:j]) {
						t.Fatalf("error %q shows %q of the secret", msg, secret[i:j])
					}
				}
			}
			if !strings.Contains(msg, "line 2") {
				t.Errorf("error %q does not name the line", msg)
			}
		})
	}
}

// fileInfo is a credentials file's mode and owner, as stat gives them.
type fileInfo struct {
	mode     os.FileMode
	uid, gid uint32
}

func (f fileInfo) Name() string       { return "credentials" }
func (f fileInfo) Size() int64        { return 0 }
func (f fileInfo) Mode() os.FileMode  { return f.mode }
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return false }
func (f fileInfo) Sys() any           { return &syscall.Stat_t{Uid: f.uid, Gid: f.gid} }

// TestLooseMode: a credentials file is readable only by its owner, or is
// a Kubernetes Secret mount (root's, readable by the engine's own group
// only).
func TestLooseMode(t *testing.T) {
	const engineGID = 65532
	cases := []struct {
		name  string
		fi    fileInfo
		gid   int
		loose bool
	}{
		{"owner only", fileInfo{mode: 0o600, uid: 1000, gid: 1000}, 1000, false},
		{"owner read only", fileInfo{mode: 0o400, uid: 65532, gid: 65532}, engineGID, false},
		{"systemd credential", fileInfo{mode: 0o400, uid: 61234, gid: 61234}, 61234, false},
		{"group readable", fileInfo{mode: 0o640, uid: 1000, gid: 1000}, 1000, true},
		{"world readable", fileInfo{mode: 0o644, uid: 1000, gid: 1000}, 1000, true},
		{"kubernetes secret (fsGroup)", fileInfo{mode: 0o440, uid: 0, gid: engineGID}, engineGID, false},
		{"kubernetes secret, another group", fileInfo{mode: 0o440, uid: 0, gid: 1234}, engineGID, true},
		{"root's group", fileInfo{mode: 0o440, uid: 0, gid: 0}, 0, true},
		{"group writable", fileInfo{mode: 0o460, uid: 0, gid: engineGID}, engineGID, true},
		{"others read too", fileInfo{mode: 0o444, uid: 0, gid: engineGID}, engineGID, true},
		{"owned by a user, group readable", fileInfo{mode: 0o440, uid: 1000, gid: engineGID}, engineGID, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := looseMode(c.fi, c.gid); got != c.loose {
				t.Errorf("looseMode(%o %d:%d, gid %d) = %t, want %t", c.fi.mode, c.fi.uid, c.fi.gid, c.gid, got, c.loose)
			}
		})
	}
}
