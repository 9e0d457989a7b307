package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickrules/tickrules/internal/racetest"
)

// TestWalkthroughAsWritten follows docs/walkthrough.md as a trader would,
// in a fresh directory: it writes the files the page gives (a yaml block
// after a sentence naming a file; a block naming a file that already
// exists is an edit of the lines it shows), and runs every command of its
// sh blocks in order ("$ bin/engine ..." in process, "$ export ..." into
// the environment). A command that fails, or prints other than the page
// shows, fails the test; so does a json block that is not what the report
// it names holds. engine sim runs in the background on a free port; runs
// keep the page's --max-runtime and serve their status page on a free
// port.
func TestWalkthroughAsWritten(t *testing.T) {
	if racetest.Enabled {
		// Its five one-day backtests take minutes under -race; the page's
		// commands are what this test checks, not their concurrency.
		t.Skip("the walkthrough runs without -race")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "walkthrough.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := walkthroughSteps(t, string(doc))
	t.Chdir(t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	w := &walkthrough{t: t, ctx: ctx, env: map[string]string{}}
	defer w.stopSim()
	commands := 0
	for _, s := range steps {
		switch {
		case s.lang == "yaml":
			w.writeFile(s)
		case s.lang == "json":
			w.compareJSON(s)
		case s.lang == "sh":
			for _, c := range s.commands {
				w.run(s, c)
				commands++
			}
		}
	}
	if commands < 8 || w.sim == nil {
		t.Fatalf("ran %d commands (sim started: %v): the page was not read as expected", commands, w.sim != nil)
	}
	w.compareSim()
}

// walkthroughStep is one fenced block of the page with the paragraph
// before it.
type walkthroughStep struct {
	lang     string
	body     string
	before   string // the paragraph before the block
	commands []walkthroughCommand
}

// walkthroughCommand is a "$ " line of an sh block and the output shown
// under it.
type walkthroughCommand struct {
	line   string
	output []string
}

func walkthroughSteps(t *testing.T, doc string) []walkthroughStep {
	t.Helper()
	var steps []walkthroughStep
	var para, block []string
	lang, in, newPara := "", false, true
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```") && !in:
			in, lang, block = true, strings.TrimPrefix(line, "```"), nil
		case strings.HasPrefix(line, "```"):
			in = false
			s := walkthroughStep{lang: lang, body: strings.Join(block, "\n") + "\n", before: strings.Join(para, "\n")}
			if lang == "sh" {
				for _, l := range block {
					if cmd, ok := strings.CutPrefix(l, "$ "); ok {
						s.commands = append(s.commands, walkthroughCommand{line: cmd})
					} else if len(s.commands) > 0 {
						c := &s.commands[len(s.commands)-1]
						c.output = append(c.output, l)
					} else {
						t.Fatalf("an sh block starts with %q, not a $ command", l)
					}
				}
			}
			steps = append(steps, s)
			para, newPara = nil, true
		case in:
			block = append(block, line)
		case strings.TrimSpace(line) == "":
			newPara = true // the paragraph stays the one before a block
		default:
			if newPara {
				para, newPara = nil, false
			}
			para = append(para, line)
		}
	}
	return steps
}

// walkthrough is the trader's terminal: the environment the page exports
// and engine sim running in the background.
type walkthrough struct {
	t   *testing.T
	ctx context.Context
	env map[string]string

	sim        *backgroundCommand
	simAddr    string // host:port engine sim listens on; the page's replaced by it
	simShown   []string
	pageAddr   string
	lastReport string
}

// backgroundCommand is a command running until stop, and what it printed.
// Its stdout line and its log (stderr) are kept apart: the two are written
// by different goroutines of the test, so one buffer would interleave them
// in whichever order the scheduler chose.
type backgroundCommand struct {
	stop   context.CancelFunc
	done   chan int
	stdout string // the one line engine sim prints there: its address
	output syncBuffer
}

// printed is what the command printed as a terminal shows it: its stdout
// line, written before its first log line, then the log.
func (b *backgroundCommand) printed() string {
	return b.stdout + b.output.String()
}

var backtickPath = regexp.MustCompile("`([\\w./-]+\\.(?:yaml|json))`")

// writeFile writes the file the paragraph before a yaml block names; when
// it exists already, the block shows lines of it as they must now read
// (matched by their key) and only those change.
func (w *walkthrough) writeFile(s walkthroughStep) {
	t := w.t
	m := backtickPath.FindAllStringSubmatch(s.before, -1)
	if len(m) == 0 {
		t.Fatalf("no file named before the yaml block:\n%s", s.body)
	}
	path := m[len(m)-1][1]
	old, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s.body), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	} else if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(old), "\n")
	for _, edit := range strings.Split(strings.TrimRight(s.body, "\n"), "\n") {
		key, _, ok := strings.Cut(edit, ":")
		i := slices.IndexFunc(lines, func(l string) bool { return ok && strings.HasPrefix(l, key+":") })
		if i < 0 {
			t.Fatalf("%s has no line %q to change", path, strings.TrimSpace(key))
		}
		lines[i] = edit
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wrongValue finds "you wrote `KEY: NEW` ... instead of OLD" in a
// paragraph: the mistake the page asks the reader to make in a rule test's
// expected place_order before a command.
var wrongValue = regexp.MustCompile("you wrote `(\\w+): ([\\d.]+)`[^.]*?instead of ([\\d.]+)")

// run runs one command of the page and compares its output.
func (w *walkthrough) run(s walkthroughStep, c walkthroughCommand) {
	t := w.t
	line := c.line
	if w.simAddr != "" {
		line = strings.ReplaceAll(line, w.pageAddr, w.simAddr)
	}
	args := shellWords(t, line)
	switch {
	case args[0] == "export":
		for _, a := range args[1:] {
			k, v, ok := strings.Cut(a, "=")
			if !ok {
				t.Fatalf("export %q: not NAME=VALUE", a)
			}
			w.env[k] = v
		}
		return
	case args[0] != "bin/engine":
		t.Fatalf("the page runs %q, which this test does not know how to run", line)
	}
	args = args[1:]
	if args[0] == "sim" {
		w.startSim(args, c.output)
		return
	}
	if args[0] == "run" {
		if !slices.Contains(args, "--max-runtime") {
			t.Fatalf("%q runs until stopped: give it --max-runtime", line)
		}
		args = append(args, "--metrics-addr", "127.0.0.1:0")
	}
	if m := wrongValue.FindStringSubmatch(s.before); m != nil {
		restore := w.misspell(m[1], m[3], m[2])
		defer restore()
	}
	want := exitOK
	if strings.Contains(s.before, "exits 1") {
		want = exitFail
	}
	var out syncBuffer // stdout and stderr, written from the engine's goroutines
	e := &cliEnv{stdout: &out, stderr: &out, getenv: func(k string) string { return w.env[k] }}
	code := dispatch(w.ctx, e, args)
	if code != want {
		t.Fatalf("$ %s: exit %d, want %d:\n%s", line, code, want, out.String())
	}
	shown := c.output
	if w.simAddr != "" {
		shown = replaceAll(shown, w.pageAddr, w.simAddr)
	}
	if d := compareShown(shown, strings.Split(strings.TrimRight(out.String(), "\n"), "\n")); d != "" {
		t.Errorf("$ %s: the output differs from the page: %s\n--- got\n%s", line, d, out.String())
	}
	if i := slices.Index(args, "--out"); i >= 0 && i+1 < len(args) {
		w.lastReport = args[i+1]
	}
}

// misspell changes KEY: OLD to KEY: NEW in the place_order expectations
// of every rule test file, and returns how to put them back.
func (w *walkthrough) misspell(key, old, new string) (restore func()) {
	t := w.t
	files, _ := filepath.Glob(filepath.Join("*", "*_test.yaml"))
	saved := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		changed := false
		for i, l := range lines {
			if strings.Contains(l, "place_order:") && strings.Contains(l, key+": "+old) {
				lines[i] = strings.Replace(l, key+": "+old, key+": "+new, 1)
				changed = true
			}
		}
		if changed {
			saved[f] = data
			if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(saved) == 0 {
		t.Fatalf("no rule test expects %s: %s to change", key, old)
	}
	return func() {
		for f, data := range saved {
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

// startSim starts engine sim in the background on a free port of the
// page's host; later commands and outputs use its address for the page's.
func (w *walkthrough) startSim(args, shown []string) {
	t := w.t
	i := slices.Index(args, "--listen")
	if i < 0 || i+1 == len(args) {
		t.Fatal("engine sim without --listen: the page's address is unknown")
	}
	w.pageAddr = args[i+1]
	host, _, _ := strings.Cut(w.pageAddr, ":")
	args = slices.Clone(args)
	args[i+1] = host + ":0"
	ctx, stop := context.WithCancel(w.ctx)
	b := &backgroundCommand{stop: stop, done: make(chan int, 1)}
	pr, pw := io.Pipe()
	e := &cliEnv{stdout: pw, stderr: &b.output, getenv: func(k string) string { return w.env[k] }}
	go func() {
		code := dispatch(ctx, e, args)
		_ = pw.Close()
		b.done <- code
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("engine sim printed no address: %v\n%s", err, b.output.String())
	}
	go func() { _, _ = io.Copy(&b.output, pr) }() // engine sim prints nothing else there
	b.stdout = first
	w.sim = b
	w.simAddr = strings.TrimSpace(strings.TrimPrefix(first, "listening on http://"))
	w.simShown = replaceAll(shown, w.pageAddr, w.simAddr)
}

// stopSim stops engine sim and waits for it.
func (w *walkthrough) stopSim() {
	if w.sim == nil {
		return
	}
	w.sim.stop()
	if code := <-w.sim.done; code != exitOK {
		w.t.Errorf("engine sim exited %d:\n%s", code, w.sim.printed())
	}
}

// compareSim compares what engine sim printed with what the page shows
// under it.
func (w *walkthrough) compareSim() {
	out := strings.Split(strings.TrimRight(w.sim.printed(), "\n"), "\n")
	if d := compareShown(w.simShown, out); d != "" {
		w.t.Errorf("engine sim: the output differs from the page: %s\n--- got\n%s", d, w.sim.printed())
	}
}

// compareJSON checks a json block against the first firing of the report
// the paragraph before it names.
func (w *walkthrough) compareJSON(s walkthroughStep) {
	t := w.t
	m := backtickPath.FindAllStringSubmatch(s.before, -1)
	if len(m) == 0 {
		t.Fatalf("no report named before the json block")
	}
	data, err := os.ReadFile(m[len(m)-1][1])
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Firings []json.RawMessage `json:"firings"`
	}
	if err := json.Unmarshal(data, &report); err != nil || len(report.Firings) == 0 {
		t.Fatalf("report %s: %v, %d firings", m[len(m)-1][1], err, len(report.Firings))
	}
	var shown, got any
	if err := json.Unmarshal([]byte(s.body), &shown); err != nil {
		t.Fatalf("the page's json block: %v", err)
	}
	if err := json.Unmarshal(report.Firings[0], &got); err != nil {
		t.Fatal(err)
	}
	a, _ := json.MarshalIndent(shown, "", " ")
	b, _ := json.MarshalIndent(got, "", " ")
	if !bytes.Equal(a, b) {
		t.Errorf("the page's firing is not the report's:\n--- got\n%s\n--- page\n%s", b, a)
	}
}

var (
	// logLine is a line of the console log: the time, then tab-separated
	// level, logger, message and fields.
	logLine = regexp.MustCompile(`^\d{4}-\d\d-\d\d[ T]\S+( \S+ \S+)?\t`)
	// elapsed is a duration the page shows in parentheses: "(41ms)".
	elapsed = regexp.MustCompile(`\(\d+(\.\d+)?(µs|ms|s|m)\)`)
	// progress is the line a long backtest prints as it goes.
	progress = regexp.MustCompile(`^backtest: +[\d.]+% at `)
)

// normalise drops what differs from run to run: the time and fields of log
// lines, elapsed times, progress lines, and the order of the "done" lines
// of variants that run at once.
func normalise(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if progress.MatchString(l) {
			continue
		}
		if logLine.MatchString(l) {
			f := strings.Split(l, "\t")[1:]
			if n := len(f); n > 1 && strings.HasPrefix(f[n-1], "{") {
				f = f[:n-1]
			}
			l = "LOG\t" + strings.Join(f, "\t")
		}
		out = append(out, elapsed.ReplaceAllString(l, "(TIME)"))
	}
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasPrefix(out[j], "done ") {
			j++
		}
		if j > i {
			slices.Sort(out[i:j])
			i = j
		} else {
			i++
		}
	}
	return out
}

// compareShown compares an output with what the page shows under its
// command. Logs are compared by level, logger and message, and the
// page's lines must come in that order, with other lines allowed between
// (a warning about the machine, the balances at the end); any other output
// must be exactly as shown. It returns what differs, or "".
func compareShown(shown, got []string) string {
	s, g := normalise(shown), normalise(got)
	if !slices.ContainsFunc(s, func(l string) bool { return strings.HasPrefix(l, "LOG\t") }) {
		if slices.Equal(s, g) {
			return ""
		}
		return fmt.Sprintf("want exactly\n%s", strings.Join(shown, "\n"))
	}
	k := 0
	for _, l := range g {
		if k < len(s) && l == s[k] {
			k++
		}
	}
	if k == len(s) {
		return ""
	}
	return fmt.Sprintf("no line like %q (in this order)", s[k])
}

func replaceAll(lines []string, old, new string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(l, old, new)
	}
	return out
}

// shellWords splits a command line as sh does for the page's commands:
// words separated by spaces, double quotes keeping spaces in a word.
func shellWords(t *testing.T, line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unclosed quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
