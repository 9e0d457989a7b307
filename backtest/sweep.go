package backtest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

// MaxVariants bounds the combinations of one sweep: a larger sweep is a
// set of independent backtest jobs for a batch system (DESIGN).
const MaxVariants = 256

// Vary is one setting a sweep varies: every ${Name} in the rule files
// takes each of Values in turn.
type Vary struct {
	Name   string
	Values []string
}

// ParseVary parses NAME=v1,v2,... as given to engine backtest --vary.
// Blanks around values are dropped; an empty value is an error, because
// an empty ${NAME} counts as unset in a rule file.
func ParseVary(s string) (Vary, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || !rulefmt.ValidEnvName(name) {
		return Vary{}, fmt.Errorf("--vary %q: write NAME=value1,value2,... where NAME is letters, digits and _ (the rules read it as ${NAME})", s)
	}
	v := Vary{Name: name}
	seen := map[string]bool{}
	for _, val := range strings.Split(list, ",") {
		val = strings.TrimSpace(val)
		if val == "" {
			return Vary{}, fmt.Errorf("--vary %q: a value of %s is empty", s, name)
		}
		if seen[val] {
			return Vary{}, fmt.Errorf("--vary %q: %s=%s is given twice", s, name, val)
		}
		seen[val] = true
		v.Values = append(v.Values, val)
	}
	return v, nil
}

// Variant is one combination of a sweep's values.
type Variant struct {
	// Name is the folder of the variant's report under the sweep's output
	// directory: NAME=value pairs in the order of the varied settings,
	// joined by commas, with characters unsafe in a file name replaced by _.
	Name string
	// Values holds the value of each varied setting, in Vary order.
	Values []string
}

// Variants returns every combination of the values, the first setting
// varying slowest. It fails on a setting named twice and on more than
// MaxVariants combinations.
func Variants(vary []Vary) ([]Variant, error) {
	if len(vary) == 0 {
		return nil, errors.New("backtest: a sweep needs at least one --vary")
	}
	total := 1
	names := map[string]bool{}
	for _, v := range vary {
		if names[v.Name] {
			return nil, fmt.Errorf("backtest: --vary %s is given twice; give all its values in one --vary", v.Name)
		}
		names[v.Name] = true
		if len(v.Values) == 0 {
			return nil, fmt.Errorf("backtest: --vary %s has no values; give them as %s=a,b", v.Name, v.Name)
		}
		total *= len(v.Values)
		if total > MaxVariants {
			return nil, fmt.Errorf("backtest: the sweep has more than %d combinations; vary fewer settings or values, or split it into several runs", MaxVariants)
		}
	}
	out := make([]Variant, 0, total)
	folders := map[string]string{}
	idx := make([]int, len(vary))
	for range total {
		vals := make([]string, len(vary))
		parts := make([]string, len(vary))
		for i, v := range vary {
			vals[i] = v.Values[idx[i]]
			parts[i] = v.Name + "=" + vals[i]
		}
		label := strings.Join(parts, ",")
		name := folderName(label)
		if other, ok := folders[name]; ok {
			return nil, fmt.Errorf("backtest: the variants %s and %s would share the folder %s; use values that differ in letters, digits or . - +", other, label, name)
		}
		folders[name] = label
		out = append(out, Variant{Name: name, Values: vals})
		// Count up, the last setting fastest.
		for i := len(idx) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < len(vary[i].Values) {
				break
			}
			idx[i] = 0
		}
	}
	return out, nil
}

// folderName keeps letters, digits and . , = + - _ of s and replaces any
// other character with _, so that a value cannot leave the output
// directory or upset a shell.
func folderName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(".,=+-_", r):
			return r
		}
		return '_'
	}, s)
}

// SweepOptions configure a sweep.
type SweepOptions struct {
	// Base is the backtest every variant runs. Its Getenv resolves the
	// ${NAME} references that no Vary names; its Progress is not used.
	Base Options
	// Prepare, when set, is called with each variant's copy of Base before
	// it runs, to give the variant what a run must not share with another
	// (a scenario loaded afresh).
	Prepare func(*Options) error
	// Vary lists the settings to vary; every combination is run.
	Vary []Vary
	// Jobs is how many variants run at once (default runtime.NumCPU()).
	Jobs int
	// Out is the directory each variant's report is written under, in
	// Out/<Variant.Name>.
	Out string
	// Done, when set, is told of each variant as its report is written,
	// one call at a time, in the order they finish.
	Done func(VariantResult)
	// Shard, when set, runs only that share of the variants (shard.go).
	Shard Shard
}

// VariantResult is what a sweep keeps of one variant's report: the
// reports themselves are written to disk as they finish, not held.
type VariantResult struct {
	Variant
	Ticks    int64
	Accounts []AccountSummary
}

// SweepResult is a finished sweep, its variants in the order of Variants.
type SweepResult struct {
	Vary     []Vary
	Variants []VariantResult
}

// Sweep runs every combination of opts.Vary as its own backtest, Jobs at a
// time, and writes each variant's report.json and report.html to its
// folder under Out. Each report is byte for byte the report of the same
// backtest run alone with the values written into the rule files. A
// varied name that no rule file references is an error, and so is the
// first variant that fails (the others are then stopped).
func Sweep(ctx context.Context, opts SweepOptions) (*SweepResult, error) {
	variants, err := Variants(opts.Vary)
	if err != nil {
		return nil, err
	}
	variants = opts.Shard.pick(variants)
	if err := checkVariesUsed(ctx, opts.Base.RuleDirs, opts.Vary); err != nil {
		return nil, err
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := &SweepResult{Vary: opts.Vary, Variants: make([]VariantResult, len(variants))}
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex // guards firstErr and calls of Done
		firstErr error
	)
	for range min(jobs, len(variants)) {
		wg.Go(func() {
			for i := range next {
				vr, err := runVariant(ctx, opts, variants[i])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("variant %s: %w", variants[i].Name, err)
					cancel()
				}
				if err == nil {
					res.Variants[i] = vr
					if opts.Done != nil {
						opts.Done(vr)
					}
				}
				mu.Unlock()
			}
		})
	}
	for i := range variants {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// runVariant runs one variant and writes its report.
func runVariant(ctx context.Context, opts SweepOptions, v Variant) (VariantResult, error) {
	o := opts.Base
	o.Progress = nil
	values := make(map[string]string, len(v.Values))
	for i, val := range v.Values {
		values[opts.Vary[i].Name] = val
	}
	getenv := opts.Base.Getenv
	o.Getenv = func(name string) string {
		if val, ok := values[name]; ok {
			return val
		}
		if getenv == nil {
			return ""
		}
		return getenv(name)
	}
	if opts.Prepare != nil {
		if err := opts.Prepare(&o); err != nil {
			return VariantResult{}, err
		}
	}
	rep, err := Run(ctx, o)
	if err != nil {
		return VariantResult{}, err
	}
	if err := rep.WriteFiles(filepath.Join(opts.Out, v.Name)); err != nil {
		return VariantResult{}, err
	}
	return VariantResult{Variant: v, Ticks: rep.Ticks, Accounts: rep.Summary.Accounts}, nil
}

// checkVariesUsed fails when a varied name is referenced by no rule file:
// a misspelt --vary would otherwise run the same backtest several times.
// It asks the rule loader which names the files reference (outside
// comments), so it agrees with the substitution itself.
func checkVariesUsed(ctx context.Context, dirs []string, vary []Vary) error {
	var mu sync.Mutex
	used := map[string]bool{}
	// Findings of this load are left to the variants' own loads, which
	// report them with a catalog and the account at hand.
	_, _ = rules.Check(ctx, dirs, rules.LoadOptions{Actions: actions.Defs(), AllowEmpty: true, Getenv: func(name string) string {
		mu.Lock()
		used[name] = true
		mu.Unlock()
		return ""
	}})
	var unused []string
	for _, v := range vary {
		if !used[v.Name] {
			unused = append(unused, v.Name)
		}
	}
	if len(unused) > 0 {
		return fmt.Errorf("backtest: no rule file in %s references ${%s}; --vary NAME sets ${NAME} in the rules",
			strings.Join(dirs, ", "), strings.Join(unused, "}, ${"))
	}
	return nil
}
