package native_test

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID of clock_gettime(2).
const clockThreadCPUTime = 3

// threadCPU is the CPU time of the calling OS thread (lock the goroutine to
// it), to the nanosecond: on a loaded machine it measures what a piece of
// work costs, not how long it waited for a core. (getrusage's thread time
// lags by up to a scheduler tick, too coarse for the halves of a benchmark.)
func threadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
