package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked is wrapped by LockDir's error when another process holds the
// state directory: two engines on one account would both fire.
var ErrLocked = errors.New("state directory is in use by another engine")

// lockFile is the lock's file name in the state directory; it holds the
// pid of the process that holds the lock.
const lockFile = "lock"

// DirLock is an advisory lock (flock) on a state directory, held until
// Unlock or the end of the process: the kernel releases it when the process
// dies, however it dies, so a crash never leaves a stale lock.
type DirLock struct {
	f *os.File
}

// LockDir takes the lock of dir (creating dir, mode 0700) without waiting
// and writes this process's pid into the lock file. When another process
// holds it, the error wraps ErrLocked and names that process's pid.
func LockDir(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state directory lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b, _ := io.ReadAll(io.LimitReader(f, 32))
			holder := "unknown pid"
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = "pid " + strconv.Itoa(pid)
			}
			return nil, fmt.Errorf("%s: %w (%s); stop it first, or give this engine its own --state-dir", dir, ErrLocked, holder)
		}
		return nil, fmt.Errorf("state directory lock %s: %w", path, err)
	}
	// The pid is only for the message of a second engine: the lock holds
	// without it, so a failed write is not an error.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DirLock{f: f}, nil
}

// Unlock releases the lock.
func (l *DirLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the flock
	l.f = nil
	return err
}

// Reset empties the locked state directory but for its lock: the rule
// states and order intents of earlier runs are gone. The embedded demo
// starts each run this way, so it does what the README says every time;
// only the holder of the lock can reset, so no running engine loses its state.
func (l *DirLock) Reset() error {
	if l == nil || l.f == nil {
		return errors.New("state directory reset: the lock is not held")
	}
	dir := filepath.Dir(l.f.Name())
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("state directory reset: %w", err)
	}
	for _, e := range entries {
		if e.Name() == lockFile {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("state directory reset: %w", err)
		}
	}
	return nil
}
