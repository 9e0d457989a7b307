package native

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/expr-lang/expr/file"
)

// runError is an error of a run, at the node where expr's VM reports it.
// The VM recovers a panic into a *file.Error whose Message is the panic
// value as text and which wraps the value when it is an error; bind builds
// the same.
type runError struct {
	at  file.Location
	msg string
	err error // nil when the VM panics with a text, not an error
}

func (e *runError) Error() string { return e.msg }

// failed is a helper's error at the call.
func failed(at file.Location, err error) error {
	return &runError{at: at, msg: err.Error(), err: err}
}

// indexError is the VM's message for an index outside a list
// (runtime.Fetch); i is the index after a negative one was counted from
// the end.
func indexError(at file.Location, i, length int) error {
	return &runError{at: at, msg: fmt.Sprintf("index out of range: %v (array length is %v)", i, length)}
}

// nilFieldError is what the VM gives for a field of a nil object: reflect
// panics in runtime.FetchField.
func nilFieldError(at file.Location) error {
	err := &reflect.ValueError{Method: "reflect.Value.Field"}
	return &runError{at: at, msg: err.Error(), err: err}
}

// errDivideByZero is the text of the Go runtime error the VM recovers from
// an integer % 0.
var errDivideByZero = errors.New("runtime error: integer divide by zero")

// bind makes err the *file.Error the VM would return.
func (p *Program) bind(err error) error {
	var re *runError
	if !errors.As(err, &re) {
		re = &runError{msg: err.Error(), err: err}
	}
	f := &file.Error{Location: re.at, Message: re.msg}
	if re.err != nil {
		f.Wrap(re.err)
	}
	return f.Bind(p.source)
}
