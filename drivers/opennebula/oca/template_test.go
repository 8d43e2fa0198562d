package oca_test

import (
	"encoding/xml"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

func TestParseTemplate(t *testing.T) {
	text := `# a VM
NAME = "web server"
cpu = 0.5
MEMORY=1024   # MB
DISK = [ IMAGE = "ubuntu", SIZE = 2048 ]
BORA_LEASE = [
  ID = "job \"7\"",
  START = now
]
EMPTY = ""`
	got, err := oca.ParseTemplate(text)
	if err != nil {
		t.Fatal(err)
	}
	want := oca.Template{
		Pairs: []oca.Pair{{Key: "NAME", Value: "web server"}, {Key: "CPU", Value: "0.5"},
			{Key: "MEMORY", Value: "1024"}, {Key: "EMPTY", Value: ""}},
		Vectors: []oca.Vector{
			{Key: "DISK", Pairs: []oca.Pair{{Key: "IMAGE", Value: "ubuntu"}, {Key: "SIZE", Value: "2048"}}},
			{Key: "BORA_LEASE", Pairs: []oca.Pair{{Key: "ID", Value: `job "7"`}, {Key: "START", Value: "now"}}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// String renders what ParseTemplate reads back.
	again, err := oca.ParseTemplate(got.String())
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("round trip: %+v, %v", again, err)
	}
	for _, bad := range []string{"NAME", "= 1", "A = [ B = 1", `A = "open`, "A = 1 2 ]"} {
		if _, err := oca.ParseTemplate(bad); !errors.Is(err, oca.ErrTemplateSyntax) {
			t.Errorf("ParseTemplate(%q): %v, want a syntax error", bad, err)
		}
	}
}

func TestTemplateXML(t *testing.T) {
	doc := `<USER_TEMPLATE><ERROR><![CDATA[Tue : boom]]></ERROR><BORA_LEASE><ID><![CDATA[x]]></ID><VMS>2</VMS></BORA_LEASE></USER_TEMPLATE>`
	var tpl oca.Template
	if err := xml.Unmarshal([]byte(doc), &tpl); err != nil {
		t.Fatal(err)
	}
	if v, _ := tpl.Get("error"); v != "Tue : boom" {
		t.Errorf("ERROR = %q", v)
	}
	vec, _ := tpl.GetVector("BORA_LEASE")
	if n, _ := vec.Get("VMS"); n != "2" {
		t.Errorf("BORA_LEASE = %+v", vec)
	}
	tpl.Set("error", "other")
	tpl.Merge(oca.Template{Pairs: []oca.Pair{{Key: "NEW", Value: "1"}}})
	if keys := tpl.Keys(); !reflect.DeepEqual(keys, []string{"BORA_LEASE", "ERROR", "NEW"}) {
		t.Errorf("keys %v", keys)
	}
}

// TestTemplateEscapes: Text writes values as oned's template parser reads
// them (template_parser.l takes the text between the quotes as is;
// template_syntax.y's unescape turns only \" into "), and ParseTemplate
// reads them the same way.
func TestTemplateEscapes(t *testing.T) {
	for _, tc := range []struct {
		name, value, text string
	}{
		{"plain", "web", `A="web"`},
		{"quote", `say "hi"`, `A="say \"hi\""`},
		// oned keeps a backslash as is: \\ would reach it as two.
		{"backslash", `C:\vm\disk`, `A="C:\vm\disk"`},
		{"backslash before a quote", `a\"b`, `A="a\\"b"`},
		{"backslash n", `line\n`, `A="line\n"`},
		// A trailing backslash cannot be quoted (\" is a quote): bare.
		{"trailing backslash", `C:\`, `A=C:\`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl := oca.Template{Pairs: []oca.Pair{{Key: "A", Value: tc.value}}}
			text, err := tpl.Text()
			if err != nil || text != tc.text+"\n" {
				t.Fatalf("Text() = %q, %v; want %q", text, err, tc.text+"\n")
			}
			back, err := oca.ParseTemplate(text + `B="after \"x\""` + "\n")
			if v, _ := back.Get("A"); err != nil || v != tc.value {
				t.Errorf("ParseTemplate(%q): A = %q, %v; want %q", text, v, err, tc.value)
			}
			if v, _ := back.Get("B"); v != `after "x"` {
				t.Errorf("the next attribute reads %q", v)
			}
		})
	}
	// What oned reads from a raw text: \\ stays two backslashes.
	if got, _ := oca.ParseTemplate(`A="x\\y"`); got.Pairs[0].Value != `x\\y` {
		t.Errorf(`"x\\y" reads as %q, oned reads x\\y`, got.Pairs[0].Value)
	}
	bad := oca.Template{Vectors: []oca.Vector{{Key: "V", Pairs: []oca.Pair{{Key: "P", Value: `two words\`}}}}}
	if _, err := bad.Text(); !errors.Is(err, oca.ErrTemplateValue) || !strings.Contains(err.Error(), "V/P") {
		t.Errorf("Text of an unwritable value: %v, want ErrTemplateValue naming V/P", err)
	}
}

// FuzzParseTemplate: never panics; what parses renders and parses back
// the same.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{`A = 1`, `A = [ B = "x", C = y ]`, "A=\"multi\nline\"", `A = "q\"uote"`, "# c\nB=2,C=3", "<TEMPLATE><A>1</A></TEMPLATE>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tpl, err := oca.ParseTemplate(in)
		if err != nil {
			return
		}
		if len(in) > 0 && in[0] == '<' {
			return // XML input: keys need not be valid in the text syntax
		}
		text, err := tpl.Text()
		if err != nil {
			return // a value oned could not read back either
		}
		again, err := oca.ParseTemplate(text)
		if err != nil {
			t.Fatalf("%q renders as %q, which does not parse: %v", in, tpl.String(), err)
		}
		if !reflect.DeepEqual(normal(again), normal(tpl)) {
			t.Fatalf("%q: round trip %+v != %+v", in, again, tpl)
		}
	})
}

func normal(t oca.Template) oca.Template {
	if len(t.Pairs) == 0 {
		t.Pairs = nil
	}
	if len(t.Vectors) == 0 {
		t.Vectors = nil
	}
	for i := range t.Vectors {
		if len(t.Vectors[i].Pairs) == 0 {
			t.Vectors[i].Pairs = nil
		}
	}
	return t
}
