// Command bora is bora's command-line tool: it simulates traces with the
// scheduler (bora simulate) and, with the daemon, manages leases and hosts.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/store"
)

// Exit codes. Scripts may rely on them:
//
//	0 exitOK          the command did what was asked
//	1 exitFailure     the command ran and failed (a conflict, a daemon error)
//	2 exitUsage       bad flags, arguments, file or request (a 400 from the
//	                  daemon too): nothing was done
//	3 exitRejected    lease create: the daemon answered, and said no (the
//	                  lease exists, in the rejected state, with a reason)
//	4 exitNotFound    no such lease or host (or another user's lease)
//	5 exitForbidden   not allowed: missing or bad token, admin operation by
//	                  a user, no permission on the socket
//	6 exitUnreachable the daemon is not running at --socket / --server
//	7 exitDamaged     store check, store restore: the store (or the
//	                  snapshot) is damaged or not a bora store
//	8 exitBusy        store restore, store check: borad holds the store
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitRejected    = 3
	exitNotFound    = 4
	exitForbidden   = 5
	exitUnreachable = 6
	exitDamaged     = 7
	exitBusy        = 8
)

// usageError marks an error caused by what the user gave.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usage(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run runs the command line args and returns the exit code; main and the
// tests call it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	root := newRootCmd(newCLI(getenv))
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "bora:", err)
		var ae *api.APIError
		if errors.As(err, &ae) && ae.Status == http.StatusUnauthorized {
			fmt.Fprintln(stderr, "bora: give a token with BORA_TOKEN (or --token)")
		}
	}
	return exitCode(err)
}

func newRootCmd(cli *cli) *cobra.Command {
	root := &cobra.Command{
		Use:           "bora",
		Short:         "bora: a lease scheduler for clusters of KVM hosts",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cli.addGlobalFlags(root)
	root.AddCommand(newSimulateCmd(), newConfigCmd(), newCalibrateCmd(), newLeaseCmd(cli), newHostCmd(cli), newScheduleCmd(cli), newStatsCmd(cli), newStoreCmd())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return root
}

// exitCode maps the error a command returned to the exit code.
func exitCode(err error) int {
	var u usageError
	var r rejectedError
	var ae *api.APIError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &r):
		return exitRejected
	case errors.As(err, &u):
		return exitUsage
	case errors.Is(err, store.ErrDamaged), errors.Is(err, store.ErrNotStore), errors.Is(err, store.ErrSchemaTooNew):
		return exitDamaged
	case errors.Is(err, store.ErrLocked):
		return exitBusy
	case errors.Is(err, api.ErrUnreachable):
		return exitUnreachable
	case errors.Is(err, api.ErrForbidden):
		return exitForbidden
	case errors.As(err, &ae):
		switch ae.Status {
		case http.StatusNotFound:
			return exitNotFound
		case http.StatusUnauthorized:
			return exitForbidden
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return exitUsage
		}
		return exitFailure
	case isCobraUsage(err):
		return exitUsage
	}
	return exitFailure
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments).
func isCobraUsage(err error) bool {
	for _, p := range []string{"unknown command", "accepts ", "requires ", "unknown flag", "unknown shorthand"} {
		if strings.Contains(err.Error(), p) {
			return true
		}
	}
	return false
}
