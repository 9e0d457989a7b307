package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tickrules/tickrules/actions"
)

// ErrBadStateFile is wrapped by the errors of a state or journal file that
// does not read as the expected version: the engine stops rather than
// start over and fire again what already fired.
var ErrBadStateFile = errors.New("state file cannot be read")

// Store keeps the rule states in one JSON file in a state directory, written
// durably (a temporary file, fsynced, renamed over the old one, and the
// directory fsynced), so a crash leaves either the old or the new file,
// never half of one, and a save that returned has reached the disk.
type Store struct {
	path string
	opts StateOptions
}

// StateOptions tune the files of a state directory.
type StateOptions struct {
	// Fault, when set, is called before every write with the file's path;
	// an error it returns fails the write as the disk would (the fault
	// injection of engine run's TICKRULES_STATE_FAULT).
	Fault func(path string) error
}

// stateFile is the file name of the rule states in the state directory.
const stateFile = "rule-state.json"

// NewStore returns a Store in dir, creating dir (mode 0700) if needed.
func NewStore(dir string) (*Store, error) { return OpenStore(dir, StateOptions{}) }

// OpenStore is NewStore with options.
func OpenStore(dir string, opts StateOptions) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	return &Store{path: filepath.Join(dir, stateFile), opts: opts}, nil
}

// AccountDir is the state directory of one account at one venue under
// base: base/<venue>/<first 16 hex digits of sha256(apiKey)>. The venue is
// the host (and port) of its URL, or the name given ("embedded-demo"); the
// key itself is never written anywhere. A demo's rule states and intents
// thus never meet a live account's.
func AccountDir(base, venue, apiKey string) string {
	host := venue
	if u, err := url.Parse(venue); err == nil && u.Host != "" {
		host = u.Host
	}
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, host)
	sum := sha256.Sum256([]byte(apiKey))
	return filepath.Join(base, host, hex.EncodeToString(sum[:8]))
}

// storeVersion is the version of the rule-state file Save writes.
// Version 2 added orders_at (RuleState.OrdersAt), version 3 the day's
// firing count (firings_day, firings_today); an older file, which has
// none of them, still loads.
const storeVersion = 3

// storeFile is the on-disk form, versioned so a later format can migrate.
type storeFile struct {
	Version int                  `json:"version"`
	Rules   map[string]RuleState `json:"rules"`
}

// loadFile reads the file name of the state directory with decode; a
// missing file is empty. A file that does not decode is an error naming
// the file and what to do (fix, the consequence of moving it away).
func loadFile[T any](s *Store, name string, decode func([]byte) (T, error), empty T, fix string) (T, error) {
	path := filepath.Join(filepath.Dir(s.path), name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, err
	}
	v, err := decode(b)
	if err != nil {
		return empty, fmt.Errorf("%s: %w (%s)", path, err, fix)
	}
	return v, nil
}

// saveFile writes v as indented JSON durably to the file name of the state
// directory.
func (s *Store) saveFile(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeDurable(filepath.Join(filepath.Dir(s.path), name), b, s.opts)
}

// Load reads the saved states; a missing file is an empty set. A file that
// does not parse as version 1, 2 or 3, has no rules object, or holds impossible
// values is an error wrapping ErrBadStateFile (times in the future are
// left to the engine, which knows the venue's time: see Future).
func (s *Store) Load() (map[string]RuleState, error) {
	return loadFile(s, stateFile, DecodeStates, map[string]RuleState{}, "fix it, or move it away to start every rule afresh: once rules may then fire again")
}

// clockSkew is how far in the future a saved time may be before it is
// reported as impossible (clocks of two machines, a venue's time).
const clockSkew = time.Minute

// DecodeStates parses a rule-state file.
func DecodeStates(b []byte) (map[string]RuleState, error) {
	var f struct {
		Version *int                        `json:"version"`
		Rules   map[string]*json.RawMessage `json:"rules"`
	}
	if err := strictJSON(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStateFile, err)
	}
	if f.Version == nil || *f.Version < 1 || *f.Version > storeVersion {
		return nil, fmt.Errorf("%w: not a version 1, 2 or 3 rule-state file", ErrBadStateFile)
	}
	if f.Rules == nil {
		return nil, fmt.Errorf(`%w: "rules" is missing or null`, ErrBadStateFile)
	}
	out := make(map[string]RuleState, len(f.Rules))
	for name, raw := range f.Rules {
		if raw == nil {
			return nil, fmt.Errorf("%w: rule %q: null state", ErrBadStateFile, name)
		}
		var st RuleState
		if err := strictJSON(*raw, &st); err != nil {
			return nil, fmt.Errorf("%w: rule %q: %v", ErrBadStateFile, name, err)
		}
		if err := st.check(); err != nil {
			return nil, fmt.Errorf("%w: rule %q: %v", ErrBadStateFile, name, err)
		}
		if *f.Version == 1 && !st.OrdersAt.IsZero() {
			return nil, fmt.Errorf("%w: rule %q: orders_at is a version 2 field", ErrBadStateFile, name)
		}
		if *f.Version < 3 && (st.FiringsDay != "" || st.FiringsToday != 0) {
			return nil, fmt.Errorf("%w: rule %q: firings_day and firings_today are version 3 fields", ErrBadStateFile, name)
		}
		out[name] = st
	}
	return out, nil
}

// check reports impossible values of a saved state.
func (s RuleState) check() error {
	switch s.Phase {
	case "", PhaseInactive, PhasePending, PhaseFiring, PhaseCooldown:
	default:
		return fmt.Errorf("unknown phase %q", s.Phase)
	}
	if s.Firings < 0 {
		return fmt.Errorf("negative firing count %d", s.Firings)
	}
	if s.Firings == 0 && (!s.LastFired.IsZero() || !s.OrdersAt.IsZero()) {
		return errors.New("last_fired or orders_at is set but the rule never fired")
	}
	if s.FiringsToday < 0 || int64(s.FiringsToday) > s.Firings {
		return fmt.Errorf("firings_today %d is not between 0 and the rule's %d firings", s.FiringsToday, s.Firings)
	}
	if (s.FiringsDay == "") != (s.FiringsToday == 0) {
		return errors.New("firings_day and firings_today go together")
	}
	if s.FiringsDay != "" {
		if _, err := time.Parse(time.DateOnly, s.FiringsDay); err != nil {
			return fmt.Errorf("firings_day %q is not a date (2006-01-02)", s.FiringsDay)
		}
	}
	return nil
}

// Future reports the times of s after now (beyond a minute of clock skew):
// a state saved by a machine whose clock ran ahead, or by a simulator
// started later in its scenario. The caller reports it and counts the
// times as now, so a cooldown ends at the latest a cooldown after now
// instead of never.
func (s RuleState) Future(now time.Time) (RuleState, string) {
	var what string
	if s.LastFired.After(now.Add(clockSkew)) {
		what = "last_fired " + s.LastFired.UTC().Format(time.RFC3339)
		s.LastFired = now
	}
	if s.Since.After(now.Add(clockSkew)) {
		if what != "" {
			what += " and "
		}
		what += "since " + s.Since.UTC().Format(time.RFC3339)
		s.Since = now
	}
	if s.OrdersAt.After(now.Add(clockSkew)) {
		if what != "" {
			what += " and "
		}
		what += "orders_at " + s.OrdersAt.UTC().Format(time.RFC3339)
		s.OrdersAt = now
	}
	return s, what
}

// strictJSON decodes one JSON value, refusing unknown fields and trailing data.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

// Save writes states durably.
func (s *Store) Save(states map[string]RuleState) error {
	return s.saveFile(stateFile, storeFile{Version: storeVersion, Rules: states})
}

// writeDurable replaces path with b so that a crash leaves the old or the
// new content and a returned nil means the new content is on disk: write a
// temporary file, fsync it, rename it over path, fsync the directory.
func writeDurable(path string, b []byte, opts StateOptions) error {
	if opts.Fault != nil {
		if err := opts.Fault(path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// haltFile is the file name of a rule's halt in the state directory.
const haltFile = "halt.json"

// LoadHalt reads the halt a rule's halt action left (actions.Halt); a
// missing file or a lifted halt is none (zero).
func (s *Store) LoadHalt() (actions.Halt, error) {
	return loadFile(s, haltFile, decodeHalt, actions.Halt{}, "fix it, or move it away to lift the halt")
}

// decodeHalt parses a halt file.
func decodeHalt(b []byte) (actions.Halt, error) {
	var h actions.Halt
	if err := strictJSON(b, &h); err != nil {
		return actions.Halt{}, fmt.Errorf("%w: %v", ErrBadStateFile, err)
	}
	return h, nil
}

// SaveHalt writes a rule's halt durably; the zero Halt records that none
// holds.
func (s *Store) SaveHalt(h actions.Halt) error { return s.saveFile(haltFile, h) }
