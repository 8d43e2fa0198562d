package store

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// precheck looks at the file at path before bbolt does: it reports
// whether the file exists and, if it does, takes its lock for the time
// of verifyFile (so that a running borad's writes are not mistaken for
// damage) and returns verifyFile's verdict. ErrLocked when the lock is
// not free within timeout.
func precheck(path string, timeout time.Duration) (exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := lock(f, timeout); err != nil {
		return true, err
	}
	return true, verifyFile(f)
}

// lock takes f's exclusive flock (the lock bbolt takes: a second flock,
// even from this process, waits for it), trying until timeout; it is
// released when f is closed. ErrLocked when another holds it.
func lock(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("locking: %w", err)
		case time.Now().After(deadline):
			return fmt.Errorf("%w (waited %s for the file lock: is borad running?)", ErrLocked, timeout)
		}
		time.Sleep(lockPoll)
	}
}

// guard runs fn, which calls bbolt on a file that verifyFile passed,
// and turns a panic, or a memory fault on the mapped file, into
// ErrDamaged: the last line of defence if the walk missed something.
func guard(what string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: bbolt failed while %s the file: %v", ErrDamaged, what, r)
		}
	}()
	return fn()
}

// refusal wraps err, an Open failure for the file at path, with the path
// and, when the file itself is at fault, with how to recover.
func refusal(path string, err error) error {
	if errors.Is(err, ErrSchemaTooNew) {
		return fmt.Errorf("store: %s: %w; to recover, run the newer bora that wrote it, or %s", path, err, strings.TrimPrefix(RecoveryHint(path), "to recover, "))
	}
	if errors.Is(err, ErrDamaged) || errors.Is(err, ErrNotStore) {
		return fmt.Errorf("store: %s: %w; %s", path, err, RecoveryHint(path))
	}
	return fmt.Errorf("store: %s: %w", path, err)
}

// RecoveryHint says how a sysadmin gets borad going again when the store
// at path is refused: restore the newest snapshot (named, if there is
// one), or move the file away and start with an empty store.
func RecoveryHint(path string) string {
	snaps, _ := Snapshots(path)
	if len(snaps) == 0 {
		return fmt.Sprintf("to recover, stop borad and move %s away to start with an empty store (there is no snapshot in %s)",
			path, SnapshotDir(path))
	}
	return fmt.Sprintf("to recover, stop borad and run `bora store restore %s` (the newest snapshot), or move %s away to start with an empty store",
		snaps[len(snaps)-1].Path, path)
}
