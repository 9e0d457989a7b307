package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The fault-injection variables of engine run. They are compiled in and
// inert unless set; the crash-point and state-directory tests set them on
// a subprocess (docs: README, "Safety").
const (
	// envCrashAt kills the engine at one step of a firing: intent-written,
	// state-saved, leg-sent:N or answer-received:N (engine.ParseCrashAt).
	envCrashAt = "TICKRULES_CRASH_AT"
	// envStateFault makes the state directory's writes fail after N of
	// them worked, as a read-only (read-only-after:N) or full
	// (full-after:N) file system would.
	envStateFault = "TICKRULES_STATE_FAULT"
	// envStallFile names a file: once it exists, the tick loop stops
	// (until the engine is stopped), as a loop stuck on a lock or a call
	// would; the health test checks /healthz and the watchdog notice.
	envStallFile = "TICKRULES_STALL_FILE"
)

// parseStateFault returns the write fault of TICKRULES_STATE_FAULT.
func parseStateFault(s string) (func(string) error, error) {
	kind, num, _ := strings.Cut(s, ":")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%s=%s: want read-only-after:N or full-after:N with N >= 0", envStateFault, s)
	}
	var fault error
	switch kind {
	case "read-only-after":
		fault = syscall.EROFS
	case "full-after":
		fault = syscall.ENOSPC
	default:
		return nil, fmt.Errorf("%s=%s: want read-only-after:N or full-after:N", envStateFault, s)
	}
	var mu sync.Mutex
	writes := 0
	return func(string) error {
		mu.Lock()
		defer mu.Unlock()
		if writes >= n {
			return fault
		}
		writes++
		return nil
	}, nil
}
