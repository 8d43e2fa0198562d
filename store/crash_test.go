package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// crashEnv names the store a helper process commits into; set only in
// the child that TestCrashDurability starts.
const crashEnv = "BORA_STORE_CRASH_CHILD"

// TestCrashHelperProcess is not a test: run by TestCrashDurability as a
// child process, it commits batch after batch and prints "committed <id>"
// after each Commit returns, until it is killed.
func TestCrashHelperProcess(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("helper process for TestCrashDurability")
	}
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for id := uint64(1); id <= 100_000; id++ {
		// Each batch touches three buckets, so a torn commit would show
		// as a lease without its host or a stale "last".
		if err := s.Commit(crashBatch(id)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("committed %d\n", id)
	}
	os.Exit(3) // never killed: the parent reports it
}

func crashBatch(id uint64) Batch {
	return Batch{
		Leases: leases(id),
		Hosts:  map[string][]byte{crashHost(id): leaseValue(id)},
		Meta:   map[string][]byte{"last": []byte(strconv.FormatUint(id, 10))},
	}
}

func crashHost(id uint64) string { return "h" + strconv.FormatUint(id, 10) }

// TestCrashDurability kills a committing child with SIGKILL after ~200
// commits and checks that every commit it reported is in the reopened
// store, whole. (SIGKILL loses the process, not the page cache: this is
// a process crash, not a power cut.)
func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "bora.db")
	printed, err := runAndKill(t, path, 200)
	if err != nil {
		t.Fatal(err)
	}

	s := openStoreAt(t, path)
	if err := s.Check(); err != nil {
		t.Fatalf("Check after crash: %v", err)
	}
	st := mustLoad(t, s)
	for _, id := range printed {
		if _, ok := st.Leases[id]; !ok {
			t.Errorf("lease %d was reported committed but is missing", id)
		}
	}
	// The child may have committed one batch it had no time to print.
	n := uint64(len(printed))
	if got := uint64(len(st.Leases)); got != n && got != n+1 {
		t.Errorf("%d leases stored, want %d or %d", got, n, n+1)
	}
	last, _ := strconv.ParseUint(string(st.Meta["last"]), 10, 64)
	if int(last) != len(st.Leases) {
		t.Errorf(`meta "last" = %d, want %d (one per committed batch)`, last, len(st.Leases))
	}
	for id := range st.Leases {
		if _, ok := st.Hosts[crashHost(id)]; !ok {
			t.Errorf("lease %d stored without host %s: torn batch", id, crashHost(id))
		}
	}
	if len(st.Hosts) != len(st.Leases) {
		t.Errorf("%d hosts for %d leases: torn batch", len(st.Hosts), len(st.Leases))
	}
	t.Logf("child killed after %d reported commits; %d stored", len(printed), len(st.Leases))
}

// runAndKill runs the helper process on path, SIGKILLs it once it has
// reported after commits, and returns every id it reported, including
// those still in the pipe when it died.
func runAndKill(t *testing.T, path string, after int) ([]uint64, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	guard := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer guard.Stop()

	var printed []uint64
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var id uint64
		if _, err := fmt.Sscanf(sc.Text(), "committed %d", &id); err != nil {
			continue // test framework chatter
		}
		if want := uint64(len(printed) + 1); id != want {
			return nil, fmt.Errorf("child reported %d, want %d", id, want)
		}
		printed = append(printed, id)
		if len(printed) == after {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				return nil, err
			}
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return nil, fmt.Errorf("child ended with %v, want SIGKILL; stderr:\n%s", err, stderr.String())
	}
	if len(printed) < after {
		return nil, fmt.Errorf("child reported %d commits before dying, want >= %d; stderr:\n%s", len(printed), after, stderr.String())
	}
	return printed, nil
}
