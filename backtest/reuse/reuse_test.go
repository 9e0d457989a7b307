package reuse

import (
	"testing"

	"github.com/tickrules/tickrules/marketdata"
	"github.com/tickrules/tickrules/rules"
)

// TestJudgeByWhatAConditionReads: a condition that reads the clock in any
// way other than comparing it with constants never has its result reused;
// only one whose comparisons with the clock can be crossed gets a crossing.
func TestJudgeByWhatAConditionReads(t *testing.T) {
	limit := []marketdata.ClockLimit{{Value: marketdata.ClockValue(0), Limit: 15}}
	cases := []struct {
		name  string
		reads rules.Reads
		want  kind
	}{
		{"data only", rules.Reads{}, sameData},
		{"session fields", rules.Reads{Time: true}, sameSession},
		{"clock without limits", rules.Reads{Clock: true}, never},
		{"clock in arithmetic", rules.Reads{Clock: true, ClockOther: true, ClockLimits: limit}, never},
		{"clock compared with constants", rules.Reads{Clock: true, ClockLimits: limit}, untilCrossing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := kindOf(tc.reads); got != tc.want {
				t.Fatalf("kindOf = %d, want %d", got, tc.want)
			}
			holds, crossing := Results{}.Judge(tc.reads)
			if (holds == nil) != (tc.want == never) || (crossing == nil) != (tc.want == never) {
				t.Fatalf("Judge gave holds %v, crossing %v for kind %d", holds != nil, crossing != nil, tc.want)
			}
		})
	}
}
