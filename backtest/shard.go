package backtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ShardFile is the file a shard of a sweep writes beside its variants'
// folders: what MergeShards needs to put the sweep back together.
const ShardFile = "shard.json"

// shardFileVersion is the version of the shard.json layout.
const shardFileVersion = 1

// Shard is one share of a sweep too large for one machine: the variants
// whose index in Variants is K modulo N. K counts from 0, as a Kubernetes
// Indexed Job's JOB_COMPLETION_INDEX does, so that shard K is the job's
// pod K. Taking every N-th variant (not a block) spreads the slow values
// of a setting over the shards. The zero Shard is the whole sweep.
type Shard struct {
	K, N int
}

// ParseShard parses K/N as given to engine backtest --shard.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, kerr := strconv.Atoi(strings.TrimSpace(k))
	ni, nerr := strconv.Atoi(strings.TrimSpace(n))
	if !ok || kerr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("--shard %q: write K/N, e.g. 0/4 for the first of four shards", s)
	}
	sh := Shard{K: ki, N: ni}
	return sh, sh.check()
}

// check fails unless 0 <= K < N.
func (s Shard) check() error {
	if s.N < 1 || s.K < 0 || s.K >= s.N {
		return fmt.Errorf("--shard %d/%d: N must be at least 1 and K from 0 to N-1", s.K, s.N)
	}
	return nil
}

// String is K/N.
func (s Shard) String() string { return strconv.Itoa(s.K) + "/" + strconv.Itoa(s.N) }

// owns reports whether the variant at index i of Variants is this shard's.
func (s Shard) owns(i int) bool { return s.N == 0 || i%s.N == s.K }

// pick returns the variants of this shard, in their order.
func (s Shard) pick(all []Variant) []Variant {
	if s.N == 0 {
		return all
	}
	var out []Variant
	for i, v := range all {
		if s.owns(i) {
			out = append(out, v)
		}
	}
	return out
}

// shardManifest is shard.json: the sweep's settings, which share this is,
// and the figures of its variants that the comparison shows.
type shardManifest struct {
	Version  int             `json:"version"`
	Vary     []varyJSON      `json:"vary"`
	Shard    int             `json:"shard"`
	Shards   int             `json:"shards"`
	Variants []variantResult `json:"variants"`
}

type varyJSON struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

type variantResult struct {
	Name     string           `json:"name"`
	Values   []string         `json:"values"`
	Ticks    int64            `json:"ticks"`
	Accounts []AccountSummary `json:"accounts"`
}

// WriteShard writes dir/shard.json for the result of shard sh of a sweep
// (Sweep with SweepOptions.Shard): its variants' reports are already in
// their folders under dir.
func (r *SweepResult) WriteShard(dir string, sh Shard) error {
	if err := sh.check(); err != nil {
		return err
	}
	m := shardManifest{Version: shardFileVersion, Shard: sh.K, Shards: sh.N, Variants: []variantResult{}}
	for _, v := range r.Vary {
		m.Vary = append(m.Vary, varyJSON(v))
	}
	for _, v := range r.Variants {
		m.Variants = append(m.Variants, variantResult{Name: v.Name, Values: v.Values, Ticks: v.Ticks, Accounts: v.Accounts})
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("backtest: encode %s: %w", ShardFile, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ShardFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("backtest: write %s: %w", ShardFile, err)
	}
	return nil
}

// readShard reads dir/shard.json.
func readShard(dir string) (shardManifest, error) {
	var m shardManifest
	b, err := os.ReadFile(filepath.Join(dir, ShardFile))
	if err != nil {
		return m, fmt.Errorf("backtest: %s is not the output of engine backtest --shard: %w", dir, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("backtest: %s: %w", filepath.Join(dir, ShardFile), err)
	}
	if m.Version != shardFileVersion {
		return m, fmt.Errorf("backtest: %s: layout version %d, this engine reads %d", filepath.Join(dir, ShardFile), m.Version, shardFileVersion)
	}
	if err := (Shard{K: m.Shard, N: m.Shards}).check(); err != nil {
		return m, fmt.Errorf("backtest: %s: %w", filepath.Join(dir, ShardFile), err)
	}
	return m, nil
}

// MergeShards puts a sweep run as N shards back together: it reads the
// shard.json of each of dirs (every shard of the same sweep, once), copies
// each variant's folder into out and returns the sweep's result, from which
// WriteCompare writes the same compare.html a single run writes. out may be
// one of dirs. It fails when a shard is missing or given twice, or when the
// shards are not of the same sweep.
func MergeShards(dirs []string, out string) (*SweepResult, error) {
	if len(dirs) == 0 {
		return nil, errors.New("backtest: merge needs the output directories of the shards")
	}
	shards := map[int]shardManifest{}
	from := map[int]string{}
	var first shardManifest
	for i, dir := range dirs {
		m, err := readShard(dir)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = m
		}
		if m.Shards != first.Shards || !slices.EqualFunc(m.Vary, first.Vary, func(a, b varyJSON) bool {
			return a.Name == b.Name && slices.Equal(a.Values, b.Values)
		}) {
			return nil, fmt.Errorf("backtest: %s and %s are shards of different sweeps (their --vary or --shard N differ)", dirs[0], dir)
		}
		if other, ok := from[m.Shard]; ok {
			return nil, fmt.Errorf("backtest: %s and %s are both shard %d/%d", other, dir, m.Shard, m.Shards)
		}
		shards[m.Shard], from[m.Shard] = m, dir
	}
	var missing []string
	for k := range first.Shards {
		if _, ok := shards[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, first.Shards))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("backtest: shards %s are missing; give the output directory of every shard", strings.Join(missing, ", "))
	}
	// out is made first: WriteCompare writes into it even when a shard's
	// folders are already there.
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("backtest: merge: %w", err)
	}
	res := &SweepResult{}
	for _, v := range first.Vary {
		res.Vary = append(res.Vary, Vary(v))
	}
	all, err := Variants(res.Vary)
	if err != nil {
		return nil, err
	}
	// Each shard must hold exactly its share, in order: the variants are
	// taken back in the order of a single run.
	next := make(map[int]int, len(shards))
	for i, want := range all {
		k := i % first.Shards
		m := shards[k]
		j := next[k]
		if j >= len(m.Variants) || m.Variants[j].Name != want.Name {
			return nil, fmt.Errorf("backtest: shard %d/%d in %s does not hold variant %s where expected; was it run with other settings?", k, first.Shards, from[k], want.Name)
		}
		next[k] = j + 1
		v := m.Variants[j]
		if err := copyVariant(filepath.Join(from[k], v.Name), filepath.Join(out, v.Name)); err != nil {
			return nil, err
		}
		res.Variants = append(res.Variants, VariantResult{Variant: Variant{Name: v.Name, Values: v.Values}, Ticks: v.Ticks, Accounts: v.Accounts})
	}
	for k, m := range shards {
		if next[k] != len(m.Variants) {
			return nil, fmt.Errorf("backtest: shard %d/%d in %s holds %d variants, its share is %d", k, first.Shards, from[k], len(m.Variants), next[k])
		}
	}
	return res, nil
}

// copyVariant copies the files of a variant's report folder (report.json,
// report.html) from src to dst, unchanged; nothing when they are the same
// folder.
func copyVariant(src, dst string) error {
	as, err1 := filepath.Abs(src)
	ad, err2 := filepath.Abs(dst)
	if err1 == nil && err2 == nil && as == ad {
		return nil
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("backtest: read the variant folder: %w", err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("backtest: merge: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return fmt.Errorf("backtest: merge: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return fmt.Errorf("backtest: merge: %w", err)
		}
	}
	return nil
}
