package yamlstrict

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type host struct {
	Name string `yaml:"name"`
	CPU  int    `yaml:"cpu"`
}

type inner struct {
	Extra string
}

// UnmarshalYAML reads an inner by Keys, to check that Check puts the
// outer path before the paths it reports.
func (in *inner) UnmarshalYAML(n *yaml.Node) error {
	if err := Keys(n, "extra"); err != nil {
		return err
	}
	return n.Decode(&struct {
		Extra *string `yaml:"extra"`
	}{&in.Extra})
}

type doc struct {
	Hosts []host           `yaml:"hosts"`
	Tags  map[string]inner `yaml:"tags"`
	Speed float64          `yaml:"speed"`
}

func parse(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		t.Fatal(err)
	}
	return root.Content[0]
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name, doc string
		line      int
		path, msg string
		unknown   bool
	}{
		{"unknown key", "speed: 1\nspeeed: 2\n", 2, "speeed", "unknown key (known here: hosts, speed, tags)", true},
		{"key in a list item", "hosts:\n  - name: a\n  - name: b\n    cpus: 2\n", 4, "hosts[1].cpus", "unknown key (known here: cpu, name)", true},
		{"not a number", "hosts:\n  - cpu: two\n", 2, "hosts[0].cpu", `"two" is not a whole number`, false},
		{"list for a value", "speed: [1]\n", 1, "speed", "expected a single value", false},
		{"value for a list", "hosts: a\n", 1, "hosts", "expected a list", false},
		// inner's own UnmarshalYAML refuses "color": its path is put below tags.x.
		{"nested unmarshaler", "tags:\n  x:\n    color: red\n", 3, "tags.x.color", "unknown key (known here: extra)", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(parse(t, tc.doc), reflect.TypeOf(doc{}), "")
			var se *Error
			if !errors.As(err, &se) || se.Line != tc.line || se.Path != tc.path || se.Err.Error() != tc.msg {
				t.Fatalf("Check = %#v, want line %d, path %s, %q", err, tc.line, tc.path, tc.msg)
			}
			if errors.Is(err, ErrUnknownKey) != tc.unknown {
				t.Errorf("errors.Is(ErrUnknownKey) = %v, want %v", !tc.unknown, tc.unknown)
			}
		})
	}
	var d doc
	if err := Decode(parse(t, "hosts:\n  - {name: a, cpu: 2}\ntags: {x: {extra: e}}\n"), &d, ""); err != nil ||
		len(d.Hosts) != 1 || d.Hosts[0].CPU != 2 || d.Tags["x"].Extra != "e" {
		t.Errorf("Decode = %v, %+v", err, d)
	}
}

func TestLines(t *testing.T) {
	ls, err := Lines(parse(t, "a:\n  b: 1\nhosts:\n  - name: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"a": 1, "a.b": 2, "hosts": 3, "hosts[0]": 4, "hosts[0].name": 4}
	if !reflect.DeepEqual(ls, want) {
		t.Errorf("Lines = %v, want %v", ls, want)
	}
	_, err = Lines(parse(t, "a:\n  b: 1\n  c: 2\n  b: 3\n"))
	var se *Error
	if !errors.As(err, &se) || !errors.Is(err, ErrDuplicateKey) || se.Line != 4 || se.Path != "a.b" ||
		se.Error() != "line 4: a.b: key written twice (first at line 2)" {
		t.Errorf("Lines of a duplicate = %v", err)
	}
}

func TestSyntax(t *testing.T) {
	var n yaml.Node
	err := yaml.Unmarshal([]byte("a: 1\nb: [\n"), &n)
	if line, msg := Syntax(err); line != 2 || msg != "did not find expected node content" {
		t.Errorf("Syntax(%v) = %d, %q; want line 2", err, line, msg)
	}
	if line, msg := Syntax(errors.New("yaml: no line here")); line != 0 || msg != "no line here" {
		t.Errorf("Syntax without a line = %d, %q", line, msg)
	}
}

// TestLoadFile: the file's text and path reach parse; a missing file is
// the reading's error, parse not called.
func TestLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(data []byte, file string) (string, error) { return file + "=" + string(data), nil }
	if got, err := LoadFile(path, parse); err != nil || got != path+"=a: 1\n" {
		t.Errorf("LoadFile: %q, %v", got, err)
	}
	called := false
	_, err := LoadFile(path+".missing", func([]byte, string) (int, error) { called = true; return 1, nil })
	if !errors.Is(err, fs.ErrNotExist) || called {
		t.Errorf("missing file: %v (parse called: %v), want fs.ErrNotExist", err, called)
	}
	for _, p := range []string{filepath.Dir(path), os.DevNull} {
		if _, err := LoadFile(p, parse); err == nil || !strings.HasSuffix(err.Error(), "not a regular file") {
			t.Errorf("%s: %v, want it refused as not a regular file", p, err)
		}
	}
}
