package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/tickrules/tickrules/actions"
)

// Journal is the intent journal of a state directory: every firing is
// recorded, with the exact requests of its legs and their client order ids,
// before its first order is sent, and removed once every leg is settled. A
// firing still in the journal at start is finished by reconciliation: the
// orders the venue has are not sent again, those it does not have are. The
// file is rewritten durably on every change (see writeDurable); it is safe
// for concurrent use.
type Journal struct {
	path string
	opts StateOptions

	mu      sync.Mutex
	intents []*Intent
	// failed is the last write's error (nil after a write that worked);
	// since is when writes started failing.
	failed error
	since  time.Time
}

// Intent is one firing in the journal.
type Intent struct {
	// ID names the firing: the rule, its firing count and the tick time.
	ID   string    `json:"id"`
	Rule string    `json:"rule"`
	At   time.Time `json:"at"`
	Seq  int64     `json:"seq"`
	// Once and Period are the rule's once kind and the period the firing
	// belongs to: after that period the firing's window has passed.
	Once   Once   `json:"once,omitempty"`
	Period string `json:"period,omitempty"`
	// State is the rule's state after the firing: restored at start when
	// the rule-state file was not saved after the intent.
	State RuleState   `json:"state"`
	Legs  []IntentLeg `json:"legs"`
}

// IntentLeg is one planned request of a firing and, once answered, how it
// ended. Legs is empty until an answer came; a leg still Unsettled is in
// doubt.
type IntentLeg struct {
	Plan actions.Plan  `json:"plan"`
	Legs []actions.Leg `json:"legs,omitempty"`
}

// settled reports whether the venue's answer for l is known.
func (l IntentLeg) settled() bool {
	if l.Plan.Done != nil {
		return true
	}
	return len(l.Legs) > 0 && !slices.ContainsFunc(l.Legs, func(x actions.Leg) bool { return x.Outcome == actions.Unsettled })
}

// open reports whether a leg of in is not settled.
func (in *Intent) open() bool {
	return slices.ContainsFunc(in.Legs, func(l IntentLeg) bool { return !l.settled() })
}

// sends reports whether in has a request to send: a firing that only logs
// (or whose actions could not be built) needs no intent on disk.
func (in *Intent) sends() bool {
	return slices.ContainsFunc(in.Legs, func(l IntentLeg) bool { return l.Plan.Done == nil })
}

// journalFile is the file name of the journal in the state directory.
const journalFile = "intents.json"

type journalDisk struct {
	Version int       `json:"version"`
	Intents []*Intent `json:"intents"`
}

// OpenJournal reads the journal of dir (creating dir, mode 0700); a
// missing file is an empty journal, a file that does not read as version 1
// an error wrapping ErrBadStateFile.
func OpenJournal(dir string, opts StateOptions) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	j := &Journal{path: filepath.Join(dir, journalFile), opts: opts}
	b, err := os.ReadFile(j.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return j, nil
	case err != nil:
		return nil, err
	}
	if j.intents, err = DecodeJournal(b); err != nil {
		return nil, fmt.Errorf("%s: %w (it lists firings whose orders may be unsettled: fix it rather than delete it)", j.path, err)
	}
	return j, nil
}

// DecodeJournal parses a journal file.
func DecodeJournal(b []byte) ([]*Intent, error) {
	var f struct {
		Version *int      `json:"version"`
		Intents []*Intent `json:"intents"`
	}
	if err := strictJSON(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStateFile, err)
	}
	if f.Version == nil || *f.Version != 1 {
		return nil, fmt.Errorf("%w: not a version 1 intent journal", ErrBadStateFile)
	}
	seen := map[string]bool{}
	for i, in := range f.Intents {
		switch {
		case in == nil:
			return nil, fmt.Errorf("%w: intents[%d] is null", ErrBadStateFile, i)
		case in.ID == "" || in.Rule == "":
			return nil, fmt.Errorf("%w: intents[%d] has no id or rule", ErrBadStateFile, i)
		case seen[in.ID]:
			return nil, fmt.Errorf("%w: intent %s is listed twice", ErrBadStateFile, in.ID)
		}
		seen[in.ID] = true
		for k, l := range in.Legs {
			if l.Plan.Done == nil && l.Plan.Op == "" {
				return nil, fmt.Errorf("%w: intent %s leg %d has no operation", ErrBadStateFile, in.ID, k)
			}
		}
	}
	return f.Intents, nil
}

// Open returns the intents in the journal (after OpenJournal: the firings
// a previous run did not finish).
func (j *Journal) Open() []*Intent {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.intents)
}

// Add records intents durably; on error they are kept in memory, the
// journal counts as failing and the next write retries them.
func (j *Journal) Add(now time.Time, intents ...*Intent) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.intents = append(j.intents, intents...)
	return j.writeLocked(now)
}

// Update records the answers of leg k of intent id.
func (j *Journal) Update(now time.Time, id string, k int, legs []actions.Leg) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	i := slices.IndexFunc(j.intents, func(in *Intent) bool { return in.ID == id })
	if i < 0 || k >= len(j.intents[i].Legs) {
		return nil // not journalled: a firing that sends nothing
	}
	j.intents[i].Legs[k].Legs = legs
	return j.writeLocked(now)
}

// Close removes intent id: every leg is settled, or the firing was abandoned.
func (j *Journal) Close(now time.Time, id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := len(j.intents)
	if j.intents = slices.DeleteFunc(j.intents, func(in *Intent) bool { return in.ID == id }); len(j.intents) == n {
		return nil
	}
	return j.writeLocked(now)
}

// Flush writes the journal again if the last write failed.
func (j *Journal) Flush(now time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failed == nil {
		return nil
	}
	return j.writeLocked(now)
}

// Failing returns since when writes fail and the last write's error; a nil
// error when the journal on disk is up to date.
func (j *Journal) Failing() (time.Time, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.since, j.failed
}

func (j *Journal) writeLocked(now time.Time) error {
	b, err := json.MarshalIndent(journalDisk{Version: 1, Intents: j.intents}, "", "  ")
	if err == nil {
		err = writeDurable(j.path, b, j.opts)
	}
	if err != nil {
		if j.failed == nil {
			j.since = now
		}
		j.failed = err
		return err
	}
	j.failed = nil
	return nil
}
