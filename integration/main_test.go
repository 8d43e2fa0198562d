package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the binaries the tests build (bora, borad: about 56 MB);
// TestMain removes it when the tests are over, so runs leave nothing in
// the temporary directory.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bora-integration-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, "integration: removing the test binaries:", err)
		code = 1
	}
	os.Exit(code)
}

// built is one binary, built once per test binary.
type built struct {
	once sync.Once
	path string
	err  error
}

var builds sync.Map // command name -> *built

// binary builds cmd/<name> into binDir, once per test binary.
func binary(t *testing.T, name string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(name, &built{})
	b := v.(*built)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, name)
		out, err := exec.Command("go", "build", "-o", b.path, "github.com/bora-sched/bora/cmd/"+name).CombinedOutput()
		if err != nil {
			b.err = errors.New(string(out))
		}
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", name, b.err)
	}
	return b.path
}

// TestBinariesInBinDir: the binaries go to the directory TestMain removes,
// not to a directory of their own that outlives the run.
func TestBinariesInBinDir(t *testing.T) {
	for _, p := range []string{bora(t), borad(t)} {
		if filepath.Dir(p) != binDir || binDir == "" {
			t.Errorf("%s is not in TestMain's directory %q", p, binDir)
		}
	}
}
