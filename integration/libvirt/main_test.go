package libvirt_test

import (
	"fmt"
	"io"
	"os"
	"testing"
)

// TestMain says, once, why the real-host tests are skipped and how to run
// them: go test ./... would otherwise skip them without a word.
func TestMain(m *testing.M) {
	if line := skipNotice(os.Getenv); line != "" {
		fmt.Fprintln(noticeWriter(), line)
	}
	os.Exit(m.Run())
}

// skipNotice is the line to print when the libvirt hosts are not
// configured, "" when they are.
func skipNotice(getenv func(string) string) string {
	if getenv(envA) != "" {
		return ""
	}
	return fmt.Sprintf("integration/libvirt: the real-host libvirt tests are skipped (%s is not set); "+
		"run them as root with: bash .ci/libvirt/run-tests.sh (it sets %s, %s, %s and %s)",
		envA, envA, envB, envGuest, envShared)
}

// noticeWriter is the terminal when there is one: go test ./... shows a
// passing package's output only with -v, and the notice is for the person
// at the terminal. Without one (CI), stderr, which -v shows.
func noticeWriter() io.Writer {
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty
	}
	return os.Stderr
}

func TestSkipNotice(t *testing.T) {
	unset := func(string) string { return "" }
	want := "integration/libvirt: the real-host libvirt tests are skipped (BORA_LIBVIRT_A is not set); " +
		"run them as root with: bash .ci/libvirt/run-tests.sh (it sets BORA_LIBVIRT_A, BORA_LIBVIRT_B, BORA_GUEST_DIR and BORA_SHARED_DIR)"
	if got := skipNotice(unset); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	set := func(k string) string { return map[string]string{envA: "qemu+tcp://a/system"}[k] }
	if got := skipNotice(set); got != "" {
		t.Errorf("hosts configured: got %q, want no notice", got)
	}
}
