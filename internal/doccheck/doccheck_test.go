package doccheck

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// outside matches a path into the sibling folder the design documents
	// used to live in, which a clone of the repository does not have.
	outside = regexp.MustCompile(`\.\./shared/`)
	// inDocs matches a document named by its path from the repository
	// root: docs/<name>.md.
	inDocs = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])docs/([A-Za-z0-9_-]+\.md)\b`)
	// bare matches a document named without a folder, <name>.md, which must
	// be beside the file that names it or at the root (README).
	bare = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])([A-Za-z0-9_-]+\.md)\b`)
)

// checked are the kinds of file whose text is searched.
var checked = map[string]bool{".go": true, ".md": true, ".yaml": true, ".yml": true}

// TestDocReferencesResolve fails for every line of a Go, Markdown or YAML
// file that names a docs/ document that does not exist, names a bare
// document that is neither beside the file nor at the root, or points
// outside the repository.
func TestDocReferencesResolve(t *testing.T) {
	root := repoRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !checked[filepath.Ext(path)] {
			return nil
		}
		files++
		for _, p := range problems(t, root, path) {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk must have found the repository's files: bora has well over
	// a hundred, and a walk of the wrong folder would pass vacuously.
	if files < 100 {
		t.Fatalf("searched %d files under %s; want the whole repository", files, root)
	}
}

// problems lists the unresolved references in one file, each as
// "path:line: ...".
func problems(t *testing.T, root, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rel, _ := filepath.Rel(root, path)
	rel = filepath.ToSlash(rel)
	dir := filepath.Dir(path)
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		at := func(format string, args ...any) {
			out = append(out, fmt.Sprintf("%s:%d: ", rel, line)+fmt.Sprintf(format, args...))
		}
		if outside.MatchString(text) {
			at("points outside the repository (%s): cite the document in docs/ instead", outside.FindString(text))
		}
		for _, m := range inDocs.FindAllStringSubmatch(text, -1) {
			if !exists(filepath.Join(root, "docs", m[2])) {
				at("refers to docs/%s, which does not exist", m[2])
			}
		}
		for _, m := range bare.FindAllStringSubmatch(text, -1) {
			if !exists(filepath.Join(dir, m[2])) && !exists(filepath.Join(root, m[2])) {
				at("refers to %s, which is neither beside this file nor at the root (the design documents are in docs/)", m[2])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// repoRoot is the folder holding go.mod, above the test's own.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if exists(filepath.Join(dir, "go.mod")) {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// TestProblemsFindsBadReferences runs the check on a small tree made for
// it, so that the check itself is known to catch each kind of bad
// reference and to let the good ones through.
func TestProblemsFindsBadReferences(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("README"+".md", "# r\n")
	write("docs/models"+".md", "see [formats](formats"+".md)\n")
	write("docs/formats"+".md", "x\n")
	good := write("pkg/good.go", "// docs/models"+".md §2, README"+".md, https://example.org/a/NOTES"+".md\n")
	bad := write("pkg/bad.go", "// ok\n// docs/gone"+".md §1\n// models"+".md section 5\n// ../"+"shared/spec/x\n")
	if p := problems(t, root, good); len(p) != 0 {
		t.Errorf("good references flagged: %q", p)
	}
	if p := problems(t, root, filepath.Join(root, "docs", "models"+".md")); len(p) != 0 {
		t.Errorf("a link beside the file flagged: %q", p)
	}
	// Line 2 names a docs/ file that is missing, line 3 a bare name that
	// is neither in pkg/ nor at the root, line 4 the folder outside.
	want := []string{"pkg/bad.go:2: refers to docs/gone", "pkg/bad.go:3: refers to models", "pkg/bad.go:4: points outside"}
	got := problems(t, root, bad)
	if len(got) != len(want) {
		t.Fatalf("got %d problems %q, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, got[i], w)
		}
	}
}
