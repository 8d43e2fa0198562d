package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// snapshotTime is the time in a snapshot's name: UTC, sortable as text,
// to the millisecond.
const snapshotTime = "20060102T150405.000Z"

// asideTime is the time in the name a restore gives the file it replaces.
const asideTime = "20060102T150405Z"

// SnapshotInfo is a snapshot file of a store.
type SnapshotInfo struct {
	Path string
	Time time.Time // when it was taken, from its name
}

// SnapshotDir is where the snapshots of the store at path are: a
// "snapshots" directory next to it.
func SnapshotDir(path string) string {
	return filepath.Join(filepath.Dir(path), "snapshots")
}

// snapshotName is the file name of a snapshot of the store at path taken
// at t: "bora.db" -> "bora-20261124T102700.000Z.db".
func snapshotName(path string, t time.Time) string {
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	return strings.TrimSuffix(base, ext) + "-" + t.UTC().Format(snapshotTime) + ext
}

// Snapshots lists the snapshots of the store at path, oldest first; none
// (and no error) when the directory does not exist.
func Snapshots(path string) ([]SnapshotInfo, error) {
	dir := SnapshotDir(path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: snapshots: %w", err)
	}
	base := filepath.Base(path)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	var out []SnapshotInfo
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ext) {
			continue
		}
		t, err := time.Parse(snapshotTime, strings.TrimSuffix(strings.TrimPrefix(name, prefix), ext))
		if err != nil {
			continue
		}
		out = append(out, SnapshotInfo{Path: filepath.Join(dir, name), Time: t})
	}
	slices.SortFunc(out, func(a, b SnapshotInfo) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// Snapshot writes a consistent copy of the store into SnapshotDir, named
// for now, and returns its path. The copy is written to a temporary file,
// fsynced, checked with check (nil: CheckFile), and only then renamed to
// its name: a snapshot under a snapshot name is complete and sound. Then
// all but the newest keep snapshots are removed (keep <= 0: none is).
func (s *Store) Snapshot(now time.Time, keep int, check func(path string) error) (string, error) {
	if check == nil {
		check = CheckFile
	}
	dir := SnapshotDir(s.path)
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return "", fmt.Errorf("store: snapshot: %w", err)
	}
	final := filepath.Join(dir, snapshotName(s.path, now))
	tmp, err := os.CreateTemp(dir, ".snapshot-*.tmp")
	if err != nil {
		return "", fmt.Errorf("store: snapshot: %w", err)
	}
	_, err = s.Backup(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = check(tmp.Name())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("store: snapshot %s: %w", final, err)
	}
	if err := syncDir(dir); err != nil {
		return final, fmt.Errorf("store: snapshot %s: %w", final, err)
	}
	return final, prune(s.path, keep)
}

// prune removes all but the newest keep snapshots of the store at path.
func prune(path string, keep int) error {
	snaps, err := Snapshots(path)
	if err != nil || keep <= 0 || len(snaps) <= keep {
		return err
	}
	var errs []error
	for _, old := range snaps[:len(snaps)-keep] {
		errs = append(errs, os.Remove(old.Path))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: removing old snapshots: %w", err)
	}
	return nil
}

// CheckFile checks the store file at path as Open does (verifyFile,
// bbolt's check, schema and layout), without writing to it. It returns
// nil for a sound store, ErrDamaged, ErrNotStore or ErrSchemaTooNew with
// the problem, ErrLocked while a borad holds the file, or the error
// opening it (os.ErrNotExist when it does not exist).
func CheckFile(path string) error {
	s, err := OpenReadOnly(path, Options{})
	if err != nil {
		return err
	}
	return s.Close()
}

// OpenReadOnly opens an existing store to read it, checked as Open does,
// and writes nothing to the file. It fails like Open, and with
// os.ErrNotExist when there is no file.
func OpenReadOnly(path string, o Options) (*Store, error) {
	return open(path, o, true)
}

// Restore replaces the store at path with a copy of snapshot, after
// check (nil: CheckFile) passes on the snapshot. The file at path, if
// any, is kept as path.damaged-TIME (now, UTC) and that name returned.
// It refuses with ErrLocked while a process (borad) holds path's lock for
// longer than timeout. The copy is written to a temporary file, fsynced
// and renamed over path.
func Restore(snapshot, path string, now time.Time, timeout time.Duration, check func(path string) error) (aside string, err error) {
	if check == nil {
		check = CheckFile
	}
	if err := check(snapshot); err != nil {
		return "", fmt.Errorf("store: restore: snapshot %s: %w", snapshot, err)
	}
	f, err := os.Open(path)
	switch {
	case err == nil:
		defer f.Close()
		if err := lock(f, timeout); err != nil {
			return "", fmt.Errorf("store: restore: %s: %w", path, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("store: restore: %w", err)
	}
	tmp := path + ".restore"
	if err := copyFile(snapshot, tmp); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("store: restore: copying %s: %w", snapshot, err)
	}
	if f != nil {
		aside = path + ".damaged-" + now.UTC().Format(asideTime)
		if err := os.Rename(path, aside); err != nil {
			_ = os.Remove(tmp)
			return "", fmt.Errorf("store: restore: %w", err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return aside, fmt.Errorf("store: restore: %w", err)
	}
	return aside, syncDir(filepath.Dir(path))
}

// copyFile copies src to a new file dst (0600), fsynced.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, DefaultMode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}
