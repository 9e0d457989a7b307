package rulefmt

import (
	"strings"
	"testing"
)

func TestExpandEnv(t *testing.T) {
	env := func(name string) string {
		return map[string]string{"SIZE": "2", "SYM": "NVDAUSDT", "LONG": "a-much-longer-value"}[name]
	}
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string // substring of the one error, "" for none
		errCol  int
	}{
		{"plain reference", "size: ${SIZE}", "size: 2", "", 0},
		{"two references", "a: ${SYM} ${SIZE}", "a: NVDAUSDT 2", "", 0},
		{"default used", "size: ${UNSET:-5}", "size: 5", "", 0},
		{"default not used", "size: ${SIZE:-5}", "size: 2", "", 0},
		{"empty default", "size: '${UNSET:-}'", "size: ''", "", 0},
		{"escaped", "msg: $${SIZE}", "msg: ${SIZE}", "", 0},
		{"in a comment", "a: 1 # ${UNSET}", "a: 1 # ${UNSET}", "", 0},
		{"hash inside quotes is no comment", `a: "x #${SIZE}"`, `a: "x #2"`, "", 0},
		{"unset", "size: ${UNSET}", "size: ", "UNSET is not set", 7},
		{"bad name", "size: ${1X}", "size: ", "not a valid", 7},
		{"unclosed", "size: ${SIZE", "size: ${SIZE", "not closed", 7},
		{"dollar alone", "price: $5", "price: $5", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, errs := ExpandEnv("t.yaml", []byte(tt.in), env, "")
			if got := src.Expanded[0]; got != tt.want {
				t.Errorf("expanded %q, want %q", got, tt.want)
			}
			switch {
			case tt.wantErr == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", errs)
			case tt.wantErr != "" && len(errs) != 1:
				t.Errorf("want one error containing %q, got %v", tt.wantErr, errs)
			case tt.wantErr != "":
				if !strings.Contains(errs[0].Message, tt.wantErr) || errs[0].Column != tt.errCol || errs[0].Line != 1 {
					t.Errorf("error %+v, want %q at 1:%d", errs[0], tt.wantErr, tt.errCol)
				}
			}
		})
	}
}

// TestEnvKeepsColumns checks that a position after a substituted value maps
// back to the author's column, and one inside it to the "$".
func TestEnvKeepsColumns(t *testing.T) {
	env := func(name string) string { return map[string]string{"LONG": "a-much-longer-value", "S": "x"}[name] }
	src, errs := ExpandEnv("t.yaml", []byte("k: ${LONG} zz ${S} yy\n"), env, "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	line := src.Expanded[0] // "k: a-much-longer-value zz x yy"
	tests := []struct {
		mark string
		want int
	}{
		{"k", 1},
		{"a-much", 4}, // inside ${LONG}: the "$"
		{"value", 4},
		{"zz", 12},
		{"x yy", 15},
		{"yy", 20},
	}
	for _, tt := range tests {
		col := len([]rune(line[:strings.Index(line, tt.mark)])) + 1
		if got := src.OrigCol(1, col); got != tt.want {
			t.Errorf("%q: expanded column %d maps to %d, want %d", tt.mark, col, got, tt.want)
		}
	}
}
