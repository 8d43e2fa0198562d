package importcheck

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/bora-sched/bora"

// graph maps an import path to what it imports (test files aside), for
// every package bora links, the standard library and modules included.
type graph map[string][]string

// rules is allowed-imports.txt: allow[p] is the set of bora packages p
// may import; forbid[p] what p must not link (bora-relative names or
// path prefixes).
type rules struct {
	allow  map[string]map[string]bool
	forbid map[string][]string
}

// TestImports checks every bora package's imports against
// allowed-imports.txt, and what each "!:" line forbids against all that
// the package links.
func TestImports(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: the import rules are not checked")
	}
	f, err := os.Open("allowed-imports.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := parseRules(f)
	if err != nil {
		t.Fatal(err)
	}
	g := loadGraph(t, goCmd)
	for _, problem := range r.check(g) {
		t.Error(problem)
	}
}

// loadGraph runs `go list -deps` over the module, from its root.
func loadGraph(t *testing.T, goCmd string) graph {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCmd, "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	g := graph{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		g[f[0]] = f[1:]
	}
	return g
}

// parseRules reads the allowlist: "pkg: imports..." and "pkg !: forbidden...",
// with # comments and blank lines.
func parseRules(r io.Reader) (rules, error) {
	rs := rules{allow: map[string]map[string]bool{}, forbid: map[string][]string{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		pkg, rest, ok := strings.Cut(line, ":")
		pkg = strings.TrimSpace(pkg)
		if !ok || pkg == "" {
			return rules{}, fmt.Errorf("allowed-imports.txt:%d: want \"package: imports...\" or \"package !: forbidden...\", got %q", n, sc.Text())
		}
		if p, forbid := strings.CutSuffix(pkg, "!"); forbid {
			p = strings.TrimSpace(p)
			rs.forbid[p] = append(rs.forbid[p], strings.Fields(rest)...)
			continue
		}
		if _, dup := rs.allow[pkg]; dup {
			return rules{}, fmt.Errorf("allowed-imports.txt:%d: %s is listed twice", n, pkg)
		}
		rs.allow[pkg] = map[string]bool{}
		for _, imp := range strings.Fields(rest) {
			rs.allow[pkg][imp] = true
		}
	}
	return rs, sc.Err()
}

// rel is a bora import path relative to the module ("sim"), and whether
// it is one.
func rel(path string) (string, bool) {
	return strings.CutPrefix(path, module+"/")
}

// check returns every broken rule, one sentence each, in a stable order.
func (rs rules) check(g graph) []string {
	var problems []string
	for _, path := range sortedKeys(g) {
		pkg, ours := rel(path)
		if !ours {
			continue
		}
		allowed, listed := rs.allow[pkg]
		if !listed {
			problems = append(problems, fmt.Sprintf("%s is not in allowed-imports.txt: add a line \"%s: <the bora packages it may import>\"", pkg, pkg))
			continue
		}
		for _, imp := range g[path] {
			if dep, ours := rel(imp); ours && !allowed[dep] {
				problems = append(problems, fmt.Sprintf("%s imports %s, which allowed-imports.txt does not allow", pkg, dep))
			}
		}
	}
	for _, pkg := range sortedKeys(rs.forbid) {
		if _, ok := g[module+"/"+pkg]; !ok {
			problems = append(problems, fmt.Sprintf("allowed-imports.txt forbids links of %s, which is not a package", pkg))
			continue
		}
		problems = append(problems, g.forbidden(pkg, rs.forbid[pkg])...)
	}
	return problems
}

// forbidden walks everything pkg links and names each forbidden package
// it reaches, with the chain of imports that reaches it.
func (g graph) forbidden(pkg string, banned []string) []string {
	start := module + "/" + pkg
	via := map[string]string{start: ""}
	queue := []string{start}
	var problems []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if b, ok := matches(p, banned); ok {
			problems = append(problems, fmt.Sprintf("%s must not link %s, but links %s: %s", pkg, b, short(p), chain(via, p)))
			continue // its own imports would only repeat the finding
		}
		for _, imp := range g[p] {
			if _, seen := via[imp]; !seen {
				via[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return problems
}

// matches reports the entry of banned that path falls under: a bora
// package (and its subpackages), or a path prefix with a dot.
func matches(path string, banned []string) (string, bool) {
	for _, b := range banned {
		full := b
		if !strings.Contains(strings.Split(b, "/")[0], ".") {
			full = module + "/" + b
		}
		if path == full || strings.HasPrefix(path, full+"/") {
			return b, true
		}
	}
	return "", false
}

// chain is the import chain from the start of a walk to p.
func chain(via map[string]string, p string) string {
	var names []string
	for ; p != ""; p = via[p] {
		names = append(names, short(p))
	}
	slices.Reverse(names)
	return strings.Join(names, " -> ")
}

func short(path string) string {
	if r, ok := rel(path); ok {
		return r
	}
	return path
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
