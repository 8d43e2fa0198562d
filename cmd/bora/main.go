// Command bora is bora's command-line tool: it simulates traces with the
// scheduler (bora simulate) and, with the daemon, manages leases and hosts.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // bad flags, config or input: nothing was done
)

// usageError marks an error caused by what the user gave.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usage(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func main() {
	root := &cobra.Command{
		Use:           "bora",
		Short:         "bora: a lease scheduler for clusters of KVM hosts",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimulateCmd())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "bora:", err)
		var u usageError
		if errors.As(err, &u) || isCobraUsage(err) {
			os.Exit(exitUsage)
		}
		os.Exit(exitFailure)
	}
	os.Exit(exitOK)
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
