package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Store keeps the rule states in one JSON file in a state directory, written
// atomically (a temporary file renamed over the old one), so a crash leaves
// either the old or the new file, never half of one.
type Store struct {
	path string
}

// stateFile is the file name of the rule states in the state directory.
const stateFile = "rule-state.json"

// NewStore returns a Store in dir, creating dir (mode 0700) if needed.
func NewStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	return &Store{path: filepath.Join(dir, stateFile)}, nil
}

// storeFile is the on-disk form, versioned so a later format can migrate.
type storeFile struct {
	Version int                  `json:"version"`
	Rules   map[string]RuleState `json:"rules"`
}

// Load reads the saved states; a missing file is an empty set.
func (s *Store) Load() (map[string]RuleState, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]RuleState{}, nil
	}
	if err != nil {
		return nil, err
	}
	var f storeFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w (move it away to start fresh)", s.path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("%s: unknown version %d", s.path, f.Version)
	}
	if f.Rules == nil {
		f.Rules = map[string]RuleState{}
	}
	return f.Rules, nil
}

// Save writes states atomically.
func (s *Store) Save(states map[string]RuleState) error {
	b, err := json.MarshalIndent(storeFile{Version: 1, Rules: states}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), stateFile+".*")
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
	return os.Rename(tmp.Name(), s.path)
}
