package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/config"
	borad "github.com/bora-sched/bora/daemon"
	"github.com/bora-sched/bora/store"
)

// restoreLockWait is how long `store restore` waits for the store's lock
// before it concludes that borad is running.
const restoreLockWait = 500 * time.Millisecond

// newStoreCmd is `bora store check|restore`: they work on the store file
// itself, not through the daemon (which must be stopped to restore).
func newStoreCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "store", Short: "Check borad's state store, or restore it from a snapshot (on the file, not through the daemon)"}
	var cfgPath, storePath string
	cmd.PersistentFlags().StringVar(&cfgPath, "config", "/etc/bora/bora.yaml", "borad's configuration file: its daemon.store is the store")
	cmd.PersistentFlags().StringVar(&storePath, "store", "", "the store file (overrides the configuration's daemon.store)")
	cmd.AddCommand(&cobra.Command{
		Use:   "check [FILE]",
		Short: "Check a store file as borad's start does (pages, schema, every record); exit 7 if it is damaged",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := storePath
			if len(args) == 1 {
				path = args[0]
			}
			path, err := storeFile(path, cfgPath)
			if err != nil {
				return err
			}
			r, err := borad.CheckStore(path)
			if err != nil {
				return storeError(err)
			}
			printCheck(cmd.OutOrStdout(), r)
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "restore SNAPSHOT",
		Short: "Replace the store with a snapshot (borad stopped); the replaced file is kept as STORE.damaged-TIME",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := storeFile(storePath, cfgPath)
			if err != nil {
				return err
			}
			check := func(p string) error { _, err := borad.CheckStore(p); return err }
			aside, err := store.Restore(args[0], path, time.Now(), restoreLockWait, check)
			if err != nil {
				return storeError(err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s: restored from %s\n", path, args[0])
			if aside != "" {
				fmt.Fprintf(out, "the file it replaced is kept as %s\n", aside)
			}
			fmt.Fprintln(out, "start borad again")
			return nil
		},
	})
	return cmd
}

// storeFile is the store to work on: the one given, or the configuration's.
func storeFile(path, cfgPath string) (string, error) {
	if path != "" {
		return path, nil
	}
	c, err := config.LoadDaemon(cfgPath)
	if err != nil {
		return "", usage("no store file given, and the configuration does not say: %w", err)
	}
	return c.Daemon.Store, nil
}

// storeError adds to err what the exit code and the user need.
func storeError(err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usageError{err}
	case errors.Is(err, store.ErrLocked):
		return fmt.Errorf("%w\nborad holds the store: stop it first (bora store works on the file itself)", err)
	}
	return err
}

// printCheck writes what store check checked in a sound store.
func printCheck(w io.Writer, r borad.StoreReport) {
	fi, _ := os.Stat(r.Path)
	var size int64
	if fi != nil {
		size = fi.Size()
	}
	fmt.Fprintf(w, "%s: ok\n", r.Path)
	fmt.Fprintf(w, "  file:      %d bytes; every page, bucket and freelist entry inside it; bbolt's consistency check passed\n", size)
	fmt.Fprintf(w, "  schema:    %d (this bora reads up to %d)\n", r.Schema, store.SchemaVersion)
	fmt.Fprintf(w, "  leases:    %d records decode (%d not over, and valid requests that fit on a host)\n", r.Leases, r.Live)
	fmt.Fprintf(w, "  hosts:     %d records decode\n", r.Hosts)
	fmt.Fprintf(w, "  meta:      %d records\n", r.Meta)
	if n := len(r.Snapshots); n > 0 {
		newest := r.Snapshots[n-1]
		fmt.Fprintf(w, "  snapshots: %d in %s, newest %s (%s)\n", n, store.SnapshotDir(r.Path), newest.Path, newest.Time.Format(time.RFC3339))
	} else {
		fmt.Fprintf(w, "  snapshots: none in %s\n", store.SnapshotDir(r.Path))
	}
}
