package rules_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tickrules/tickrules/rules"
)

// FuzzLoad feeds arbitrary bytes to the loader: it must never panic, every
// finding must name the file, and a load without errors must give rules.
func FuzzLoad(f *testing.F) {
	for _, glob := range []string{"testdata/good/*.yaml", "testdata/bad/*.yaml", "testdata/bad/*/*.yaml"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("rules:\n  - name: x\n    when: \"${A:-1} > 0\"\n    actions: [cancel_all: {}]\n"))
	f.Add([]byte("rules: &a [*a]\n"))
	opts := testOptions()
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, errs := rules.LoadBytes(context.Background(), "fuzz.yaml", data, opts)
		for _, e := range errs {
			if e.File != "fuzz.yaml" {
				t.Fatalf("finding without the file name: %+v", e)
			}
			_ = e.Render(discard{})
		}
		if !errs.HasErrors() && rs == nil {
			t.Fatal("no errors but no rule set")
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
