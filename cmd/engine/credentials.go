package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/rules"
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
	path := getenv(envCredsFile)
	if path != "" {
		if !c.IsZero() {
			return exchange.Credentials{}, fmt.Errorf("credentials: set either %s or the %s variables, not both", envCredsFile, envAPIKey)
		}
		fi, err := stat(path)
		if err != nil {
			return exchange.Credentials{}, fmt.Errorf("credentials file: %w", err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return exchange.Credentials{}, fmt.Errorf("%s (mode %o): %w", path, fi.Mode().Perm(), errLooseCredentialsFile)
		}
		b, err := readFile(path)
		if err != nil {
			return exchange.Credentials{}, fmt.Errorf("credentials file: %w", err)
		}
		if c, err = parseCredentials(b); err != nil {
			return exchange.Credentials{}, fmt.Errorf("credentials file %s: %w", path, err)
		}
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

// parseCredentials reads KEY=VALUE lines; blank lines and # comments are
// skipped. Errors name the line, never any part of its text.
func parseCredentials(b []byte) (exchange.Credentials, error) {
	var c exchange.Credentials
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return c, fmt.Errorf("line %d: want NAME=value", n)
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case envAPIKey:
			c.APIKey = v
		case envSecret:
			c.Secret = v
		case envPassphrase:
			c.Passphrase = v
		default:
			// The name is not echoed: on a malformed line it may be the
			// start of a secret (a value with an = in it, or a line without
			// its name). Only a known name is offered as a correction.
			names := []string{envAPIKey, envSecret, envPassphrase}
			if s := rules.Suggest(strings.TrimSpace(k), names); s != "" {
				return c, fmt.Errorf("line %d: unknown name; did you mean %s?", n, s)
			}
			return c, fmt.Errorf("line %d: unknown name (want %s, %s or %s)", n, envAPIKey, envSecret, envPassphrase)
		}
	}
	return c, sc.Err()
}
