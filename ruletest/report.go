package ruletest

import (
	"fmt"
	"io"
	"time"
)

// Summary counts the tests of a run.
type Summary struct {
	Files, Tests, Passed, Failed, BrokenFiles int
}

// Summarize counts results.
func Summarize(results []FileResult) Summary {
	var s Summary
	for _, f := range results {
		s.Files++
		if f.Errors.HasErrors() {
			s.BrokenFiles++
		}
		for _, t := range f.Tests {
			s.Tests++
			if t.Passed() {
				s.Passed++
			} else {
				s.Failed++
			}
		}
	}
	return s
}

// OK reports whether every file loaded and every test passed.
func (s Summary) OK() bool { return s.Failed == 0 && s.BrokenFiles == 0 }

// String reads "4 tests in 3 files: 3 passed, 1 failed".
func (s Summary) String() string {
	out := fmt.Sprintf("%d tests in %d files: %d passed, %d failed", s.Tests, s.Files, s.Passed, s.Failed)
	if s.BrokenFiles > 0 {
		out += fmt.Sprintf("; %d files could not run", s.BrokenFiles)
	}
	return out
}

// maxShownFailures is how many differences of one failing test are
// printed without -v: the first ones say what went wrong, and a test that
// fails on every tick would otherwise print hundreds of lines.
const maxShownFailures = 5

// Write prints results for a person: per file, a PASS or FAIL line per
// test with each difference under a failure, and the findings of files that
// could not run. With verbose false, passing tests are counted but not
// listed, and a failing test shows its first differences and a count of
// the rest. elapsed false leaves out run times (for golden output).
func Write(w io.Writer, results []FileResult, verbose, elapsed bool) error {
	for _, f := range results {
		if len(f.Errors) > 0 {
			if _, err := fmt.Fprintf(w, "%s: could not run\n", f.Path); err != nil {
				return err
			}
			if err := f.Errors.Render(w); err != nil {
				return err
			}
			continue
		}
		if !verbose && !f.Failed() {
			continue
		}
		if _, err := fmt.Fprintln(w, f.Path); err != nil {
			return err
		}
		for _, t := range f.Tests {
			if t.Passed() && !verbose {
				continue
			}
			status := "PASS"
			if !t.Passed() {
				status = "FAIL"
			}
			dur := ""
			if elapsed {
				dur = fmt.Sprintf(" (%s)", t.Elapsed.Round(time.Millisecond))
			}
			if _, err := fmt.Fprintf(w, "  %s  %s%s\n", status, t.Name, dur); err != nil {
				return err
			}
			shown := t.Failures
			if !verbose && len(shown) > maxShownFailures {
				shown = shown[:maxShownFailures]
			}
			for _, msg := range shown {
				if _, err := fmt.Fprintf(w, "        %s\n", msg); err != nil {
					return err
				}
			}
			if more := len(t.Failures) - len(shown); more > 0 {
				if _, err := fmt.Fprintf(w, "        ... and %d more differences (-v shows them all)\n", more); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
