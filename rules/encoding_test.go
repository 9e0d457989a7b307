package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tickrules/tickrules/rulefmt"
	"github.com/tickrules/tickrules/rules"
)

func TestEncodingAndEmptyFiles(t *testing.T) {
	for _, tc := range []struct {
		name       string
		data       string
		allowEmpty bool
		want       string // the first finding, one-line form
		severity   rulefmt.Severity
	}{
		{"empty", "", false, "f.yaml:1:1: the file is empty: it has no rules", rulefmt.SeverityError},
		{"blank lines", "\n  \n", false, "f.yaml:1:1: the file is empty: it has no rules", rulefmt.SeverityError},
		{"comments only", "# rules:\n#  - name: x\n", false, "f.yaml:1:1: the file holds only comments: it has no rules", rulefmt.SeverityError},
		{"empty allowed", "", true, "f.yaml:1:1: warning: the file is empty: it has no rules", rulefmt.SeverityWarning},
		{"latin-1 on line 3", "rules:\n  - name: x\n    description: caf\xe9\n", false,
			"f.yaml:3:21: the byte 0xE9 here is not UTF-8 text: the file was saved in another encoding (such as Latin-1 or Windows-1252)", rulefmt.SeverityError},
		{"utf-16", "\xff\xfer\x00u\x00", false, `f.yaml:1:1: the file is saved as UTF-16 ("Unicode"), not as UTF-8 text`, rulefmt.SeverityError},
		{"utf-8 byte order mark", "\xef\xbb\xbfrules:\n  - name: x\n    when: market.is_open && markt.dst\n    actions: [cancel_all: {}]\n", false,
			"f.yaml:3:29: unknown variable markt", rulefmt.SeverityError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions()
			opts.AllowEmpty = tc.allowEmpty
			_, errs := rules.LoadBytes(context.Background(), "f.yaml", []byte(tc.data), opts)
			if len(errs) == 0 {
				t.Fatal("no finding")
			}
			if got := errs[0].Error(); got != tc.want || errs[0].Severity != tc.severity {
				t.Errorf("got  %s (%s)\nwant %s (%s)", got, errs[0].Severity, tc.want, tc.severity)
			}
			if strings.Contains(tc.want, "UTF-") {
				if !strings.Contains(errs[0].Hint, "save the file as UTF-8") {
					t.Errorf("hint %q", errs[0].Hint)
				}
			}
		})
	}
}

func TestStrictMakesWarningsErrors(t *testing.T) {
	es := rulefmt.Errors{{File: "a", Severity: rulefmt.SeverityWarning, Message: "w"}}
	if es.HasErrors() {
		t.Fatal("a warning is not an error")
	}
	strict := es.Strict()
	if !strict.HasErrors() || strict[0].Message != "w" {
		t.Errorf("strict: %+v", strict[0])
	}
	if es[0].Severity != rulefmt.SeverityWarning {
		t.Error("Strict changed the findings it was given")
	}
}
