package importcheck

import (
	"slices"
	"strings"
	"testing"
)

// TestCheckFindsEachKindOfBreak runs the checker over a made-up graph
// with one break of each kind, so that TestImports passing means the
// rules hold, not that the checker sees nothing.
func TestCheckFindsEachKindOfBreak(t *testing.T) {
	rs, err := parseRules(strings.NewReader(`
# a comment
config: scheduler
scheduler:
sim: scheduler report
report:
cmd/borad: config
cmd/borad !: sim gonum.org/v1/plot
`))
	if err != nil {
		t.Fatal(err)
	}
	m := module + "/"
	g := graph{
		m + "cmd/borad": {m + "config"},
		// config imports sim, which the list does not allow, and through
		// it borad links sim and gonum's plot.
		m + "config":           {m + "scheduler", m + "sim", "fmt"},
		m + "scheduler":        {"fmt"},
		m + "sim":              {m + "scheduler", m + "report"},
		m + "report":           {"gonum.org/v1/plot/vg"},
		m + "newpkg":           nil, // not listed at all
		"gonum.org/v1/plot/vg": nil,
		"fmt":                  nil,
	}
	want := []string{
		"config imports sim, which allowed-imports.txt does not allow",
		`newpkg is not in allowed-imports.txt: add a line "newpkg: <the bora packages it may import>"`,
		"cmd/borad must not link sim, but links sim: cmd/borad -> config -> sim",
	}
	got := rs.check(g)
	if !slices.Equal(got, want) {
		t.Errorf("check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without the edge config -> sim, plot is reached only if report is
	// linked some other way: add borad -> report to see the prefix rule.
	g[m+"config"] = []string{m + "scheduler"}
	g[m+"cmd/borad"] = []string{m + "config", m + "report"}
	rs.allow["cmd/borad"]["report"] = true
	want = []string{"cmd/borad must not link gonum.org/v1/plot, but links gonum.org/v1/plot/vg: cmd/borad -> report -> gonum.org/v1/plot/vg"}
	rs.allow["newpkg"] = map[string]bool{}
	if got := rs.check(g); !slices.Equal(got, want) {
		t.Errorf("check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseRulesRefusesBadLines(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"no colon", "config scheduler\n", `allowed-imports.txt:1: want "package: imports..."`},
		{"listed twice", "a: b\n\na: c\n", "allowed-imports.txt:3: a is listed twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseRules(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
