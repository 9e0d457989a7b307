package rules

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time of the calling OS thread (lock the goroutine to
// it): on a loaded machine it measures what a piece of work costs, not how
// long it waited for a core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
