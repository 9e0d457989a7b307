package rulefmt

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestErrorRender(t *testing.T) {
	tests := []struct {
		name string
		err  Error
		want string
	}{
		{"caret under the column with hint",
			Error{File: "a.yaml", Line: 3, Column: 11, Severity: SeverityError, Message: "unknown variable markt", Hint: "did you mean market?", Source: "    when: markt.is_open"},
			"a.yaml:3:11: unknown variable markt\n        when: markt.is_open\n              ^\n    hint: did you mean market?\n"},
		{"tabs kept so the caret lines up",
			Error{File: "a.yaml", Line: 2, Column: 3, Severity: SeverityError, Message: "m", Source: "\t\tx"},
			"a.yaml:2:3: m\n    \t\tx\n    \t\t^\n"},
		{"warning",
			Error{File: "a.yaml", Line: 1, Column: 1, Severity: SeverityWarning, Message: "w", Source: "x"},
			"a.yaml:1:1: warning: w\n    x\n    ^\n"},
		{"no position: file only",
			Error{File: "dir", Severity: SeverityError, Message: "no such file or directory"},
			"dir: no such file or directory\n"},
		{"column past the end of the line",
			Error{File: "a.yaml", Line: 1, Column: 4, Severity: SeverityError, Message: "m", Source: "ab"},
			"a.yaml:1:4: m\n    ab\n       ^\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.err.Render(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

func TestErrorsJSONAndCounts(t *testing.T) {
	es := Errors{
		{File: "a.yaml", Line: 1, Column: 2, Severity: SeverityError, Message: "e", Hint: "h", Source: "s"},
		{File: "a.yaml", Line: 2, Column: 1, Severity: SeverityWarning, Message: "w"},
	}
	if !es.HasErrors() || (Errors{es[1]}).HasErrors() {
		t.Error("HasErrors must count errors, not warnings")
	}
	if e, w := es.Count(); e != 1 || w != 1 {
		t.Errorf("Count = %d, %d", e, w)
	}
	data, err := es.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0]["file"] != "a.yaml" || got[0]["line"] != 1.0 || got[0]["column"] != 2.0 ||
		got[0]["severity"] != "error" || got[0]["message"] != "e" || got[0]["hint"] != "h" || got[1]["severity"] != "warning" {
		t.Errorf("JSON = %s", data)
	}
	if _, ok := got[1]["hint"]; ok {
		t.Error("empty hint must be left out")
	}
	empty, _ := Errors(nil).JSON()
	if string(empty) != "[]" {
		t.Errorf("no findings must be [], got %s", empty)
	}
}
