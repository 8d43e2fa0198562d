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
	"github.com/bora-sched/bora/scheduler"
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
//	9 exitAdmission   lease create: the cluster's admission stage said no
//	                  (reason admission-limit or availability,
//	                  docs/models.md §4): the lease exists, rejected;
//	                  another cluster may take it
//	130, 143          stopped by SIGINT (Ctrl-C) or SIGTERM: 128 + the
//	                  signal's number (bora simulate says how far it got)
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
	exitAdmission   = 9
)

// usageError marks an error caused by what the user gave.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usage(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func main() {
	ctx, stop := signalContext()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// signalError is the cause of the command's context when SIGINT (Ctrl-C)
// or SIGTERM came: a command stopped by it exits 128 + the signal's
// number, as a shell reports it (130 for Ctrl-C, 143 for SIGTERM).
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "stopped by " + e.sig.String() }

// signalContext is cancelled, with a signalError as its cause, by the
// first SIGINT or SIGTERM; a second one kills the command as usual.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		signal.Stop(sigs)
		if sig, isSys := s.(syscall.Signal); isSys {
			cancel(signalError{sig})
		}
	}()
	return ctx, func() { signal.Stop(sigs); close(sigs); cancel(nil) }
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
	root.AddCommand(newSimulateCmd(), newExperimentCmd(), newConfigCmd(), newCalibrateCmd(), newLeaseCmd(cli), newHostCmd(cli), newScheduleCmd(cli), newStatsCmd(cli), newAdmissionCmd(cli), newGatewayCmd(), newStoreCmd(), newWorkloadCmd())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return root
}

// exitCode maps the error a command returned to the exit code.
func exitCode(err error) int {
	var u usageError
	var r rejectedError
	var ae *api.APIError
	var sig signalError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &sig):
		return 128 + int(sig.sig)
	case errors.As(err, &r) && (r.lease.Reason == string(scheduler.ReasonAdmissionLimit) ||
		r.lease.Reason == string(scheduler.ReasonAvailability)):
		return exitAdmission
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
