package exchange

import "testing"

// TestBatchFailureGone: which failed batch items mean "already gone" (a
// cancel or close with nothing left to do) and which stay failures.
func TestBatchFailureGone(t *testing.T) {
	for _, c := range []struct {
		name string
		f    BatchFailure
		want bool
	}{
		{"spec: order does not exist", BatchFailure{ErrorCode: CodeOrderNotExist, ErrorMsg: "order does not exist"}, true},
		{"spec: no position to close", BatchFailure{ErrorCode: CodeNoPosition}, true},
		{"venue docs: message only", BatchFailure{OrderID: "232", ErrorMsg: "notExistend"}, true},
		{"a code that is not not-found", BatchFailure{ErrorCode: "40762", ErrorMsg: "notExistend"}, false},
		{"an unknown message without a code", BatchFailure{ErrorMsg: "system busy"}, false},
		{"nothing said", BatchFailure{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.Gone(); got != c.want {
				t.Errorf("Gone() = %v, want %v", got, c.want)
			}
		})
	}
}
