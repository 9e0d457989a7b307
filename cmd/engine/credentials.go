package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rulefmt"
)

// Environment variables that carry the credentials. Flags never do: a flag
// shows in the process list and in shell history.
const (
	envAPIKey     = "TICKRULES_API_KEY"
	envSecret     = "TICKRULES_API_SECRET"
	envPassphrase = "TICKRULES_API_PASSPHRASE"
	envCredsFile  = "TICKRULES_CREDENTIALS_FILE"
)

// errLooseCredentialsFile is returned when others can read the credentials file.
var errLooseCredentialsFile = errors.New("credentials file is readable by other users; run: chmod 600")

// loadCredentials reads the credentials from the environment, or from the
// file named by TICKRULES_CREDENTIALS_FILE (lines KEY=VALUE with the same
// three names), which must be readable only by its owner. It returns the
// zero Credentials when none is configured. Errors never contain a value.
func loadCredentials(getenv func(string) string, stat func(string) (fs.FileInfo, error), readFile func(string) ([]byte, error)) (exchange.Credentials, error) {
	c := exchange.Credentials{APIKey: getenv(envAPIKey), Secret: getenv(envSecret), Passphrase: getenv(envPassphrase)}
	if getenv(envCredsFile) != "" {
		if !c.IsZero() {
			return exchange.Credentials{}, fmt.Errorf("credentials: set either %s or the %s variables, not both", envCredsFile, envAPIKey)
		}
		lines, err := readCredentialsFile(getenv, stat, readFile)
		if err != nil {
			return exchange.Credentials{}, err
		}
		c = exchange.Credentials{APIKey: lines[envAPIKey], Secret: lines[envSecret], Passphrase: lines[envPassphrase]}
	}
	if c.IsZero() {
		return c, nil
	}
	var missing []string
	for name, v := range map[string]string{envAPIKey: c.APIKey, envSecret: c.Secret, envPassphrase: c.Passphrase} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return exchange.Credentials{}, fmt.Errorf("credentials: %s not set (all three are needed)", strings.Join(missing, ", "))
	}
	return c, nil
}

// loadSecrets returns a lookup of the other secrets engine run may need
// (notification tokens and webhook URLs): the environment first, then the
// credentials file. Errors never contain a value.
func loadSecrets(getenv func(string) string, stat func(string) (fs.FileInfo, error), readFile func(string) ([]byte, error)) (func(string) string, error) {
	var lines map[string]string
	if getenv(envCredsFile) != "" {
		var err error
		if lines, err = readCredentialsFile(getenv, stat, readFile); err != nil {
			return nil, err
		}
	}
	return func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return lines[name]
	}, nil
}

// looseMode reports whether the file of fi can be read by someone other
// than the engine, whose group is gid. Readable only by its owner is the
// rule. The one exception is a file Kubernetes mounts from a Secret: it is
// always owned by root and made readable by the pod's group (fsGroup), so
// a file owned by root, readable by the engine's own group (not root's)
// and by no one else, and writable by no group, passes too
// (deploy/kubernetes runs the engine with runAsGroup equal to fsGroup).
func looseMode(fi fs.FileInfo, gid int) bool {
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	secretMount := ok && perm&0o037 == 0 && st.Uid == 0 && gid != 0 && int(st.Gid) == gid
	return !secretMount
}

// readCredentialsFile reads the file named by TICKRULES_CREDENTIALS_FILE,
// which must be readable only by its owner.
func readCredentialsFile(getenv func(string) string, stat func(string) (fs.FileInfo, error), readFile func(string) ([]byte, error)) (map[string]string, error) {
	path := getenv(envCredsFile)
	fi, err := stat(path)
	if err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	if looseMode(fi, os.Getgid()) {
		return nil, fmt.Errorf("%s (mode %o): %w", path, fi.Mode().Perm(), errLooseCredentialsFile)
	}
	b, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	lines, err := parseCredentials(b)
	if err != nil {
		return nil, fmt.Errorf("credentials file %s: %w", path, err)
	}
	return lines, nil
}

// parseCredentials reads NAME=value lines; blank lines and # comments are
// skipped. Besides the three exchange names it takes other TICKRULES_
// names (notification tokens), but not a near miss of the three: a typo
// there must not pass silently. Errors name the line, never any part of its
// text: on a malformed line the name may be the start of a secret.
func parseCredentials(b []byte) (map[string]string, error) {
	exchangeNames := []string{envAPIKey, envSecret, envPassphrase}
	lines := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: want NAME=value", n)
		}
		k = strings.TrimSpace(k)
		if !slices.Contains(exchangeNames, k) && (!strings.HasPrefix(k, "TICKRULES_") || !rulefmt.ValidEnvName(k) || rulefmt.Suggest(k, exchangeNames) != "") {
			// The name is not echoed: on a malformed line it may be the
			// start of a secret (a value with an = in it, or a line without
			// its name). Only a known name is offered as a correction.
			if s := rulefmt.Suggest(k, exchangeNames); s != "" {
				return nil, fmt.Errorf("line %d: unknown name; did you mean %s?", n, s)
			}
			return nil, fmt.Errorf("line %d: unknown name (want %s, %s, %s or a notification secret named TICKRULES_...)", n, envAPIKey, envSecret, envPassphrase)
		}
		lines[k] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return lines, sc.Err()
}
