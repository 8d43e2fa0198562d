package oca

import (
	"encoding/xml"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Pair is a single attribute: KEY = "value".
type Pair struct {
	Key   string
	Value string
}

// Vector is a vector attribute: KEY = [ K1 = "v1", K2 = "v2" ].
type Vector struct {
	Key   string
	Pairs []Pair
}

// Get returns the value of the first pair named key (case-insensitive).
func (v Vector) Get(key string) (string, bool) {
	for _, p := range v.Pairs {
		if strings.EqualFold(p.Key, key) {
			return p.Value, true
		}
	}
	return "", false
}

// Template is a dynamic OpenNebula template (TEMPLATE, USER_TEMPLATE):
// single and vector attributes in document order (goca: dynamic.Template).
type Template struct {
	Pairs   []Pair
	Vectors []Vector
}

// Get returns the value of the first single attribute named key
// (case-insensitive).
func (t Template) Get(key string) (string, bool) {
	for _, p := range t.Pairs {
		if strings.EqualFold(p.Key, key) {
			return p.Value, true
		}
	}
	return "", false
}

// GetVector returns the first vector attribute named key.
func (t Template) GetVector(key string) (Vector, bool) {
	for _, v := range t.Vectors {
		if strings.EqualFold(v.Key, key) {
			return v, true
		}
	}
	return Vector{}, false
}

// Has reports a single or vector attribute named key.
func (t Template) Has(key string) bool {
	_, p := t.Get(key)
	_, v := t.GetVector(key)
	return p || v
}

// Set replaces the single attribute key (and any vector of that name)
// or appends it.
func (t *Template) Set(key, value string) {
	t.Del(key)
	t.Pairs = append(t.Pairs, Pair{Key: strings.ToUpper(key), Value: value})
}

// SetVector replaces the attribute key with a vector or appends it.
func (t *Template) SetVector(v Vector) {
	t.Del(v.Key)
	v.Key = strings.ToUpper(v.Key)
	t.Vectors = append(t.Vectors, v)
}

// Del removes every attribute named key.
func (t *Template) Del(key string) {
	ps := t.Pairs[:0:0]
	for _, p := range t.Pairs {
		if !strings.EqualFold(p.Key, key) {
			ps = append(ps, p)
		}
	}
	vs := t.Vectors[:0:0]
	for _, v := range t.Vectors {
		if !strings.EqualFold(v.Key, key) {
			vs = append(vs, v)
		}
	}
	t.Pairs, t.Vectors = ps, vs
}

// Merge sets every attribute of o in t (one.vm.update's Merge).
func (t *Template) Merge(o Template) {
	for _, p := range o.Pairs {
		t.Set(p.Key, p.Value)
	}
	for _, v := range o.Vectors {
		t.SetVector(v)
	}
}

// Clone is a deep copy.
func (t Template) Clone() Template {
	c := Template{Pairs: append([]Pair(nil), t.Pairs...)}
	for _, v := range t.Vectors {
		c.Vectors = append(c.Vectors, Vector{Key: v.Key, Pairs: append([]Pair(nil), v.Pairs...)})
	}
	return c
}

// String renders the template in OpenNebula's text syntax, as Text does,
// for messages and tests. A value Text refuses is written as is, so the
// text may not read back the same: use Text to send a template to oned.
func (t Template) String() string {
	s, _ := t.Text()
	return s
}

// Text renders the template in OpenNebula's text syntax, single
// attributes first, values in double quotes. oned's template parser
// (template_parser.l, template_syntax.y) takes everything between the
// quotes as is and only turns \" back into ": so a quote is written \",
// and a backslash is written as itself (\ would reach oned as two). A
// value ending in a backslash cannot be quoted (the closing quote would
// read as \"): it is written bare when it is a bare word (no blank,
// =, #, comma, bracket or newline), else Text returns an error wrapping
// ErrTemplateValue that names the attribute.
func (t Template) Text() (string, error) {
	var b strings.Builder
	var errs []error
	put := func(key, val string) string {
		q, err := quote(val)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %v", ErrTemplateValue, key, err))
		}
		return q
	}
	for _, p := range t.Pairs {
		fmt.Fprintf(&b, "%s=%s\n", p.Key, put(p.Key, p.Value))
	}
	for _, v := range t.Vectors {
		fmt.Fprintf(&b, "%s=[\n", v.Key)
		for i, p := range v.Pairs {
			sep := ","
			if i == len(v.Pairs)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "  %s=%s%s\n", p.Key, put(v.Key+"/"+p.Key, p.Value), sep)
		}
		b.WriteString("]\n")
	}
	return b.String(), errors.Join(errs...)
}

// quote writes s as oned reads it back (see Text).
func quote(s string) (string, error) {
	if strings.HasSuffix(s, `\`) {
		if isBareWord(s) {
			return s, nil
		}
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`,
			errors.New("a value ending in a backslash can only be written bare, and this one has blanks or separators")
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`, nil
}

// isBareWord reports whether s reads back unquoted: oned's STRING token,
// [^=#[:blank:]\n,\[\]]+, which does not start with a quote.
func isBareWord(s string) bool {
	return s != "" && s[0] != '"' && !strings.ContainsAny(s, "=# \t\n\r,[]")
}

// UnmarshalXML reads a TEMPLATE or USER_TEMPLATE element: an element
// with text is a single attribute, one with child elements a vector.
func (t *Template) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	*t = Template{}
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if err := t.readAttribute(d, el); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

func (t *Template) readAttribute(d *xml.Decoder, start xml.StartElement) error {
	var text strings.Builder
	var vec *Vector
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch el := tok.(type) {
		case xml.CharData:
			text.Write(el)
		case xml.StartElement:
			if vec == nil {
				vec = &Vector{Key: start.Name.Local}
			}
			var v string
			if err := d.DecodeElement(&v, &el); err != nil {
				return err
			}
			vec.Pairs = append(vec.Pairs, Pair{Key: el.Name.Local, Value: v})
		case xml.EndElement:
			if vec != nil {
				t.Vectors = append(t.Vectors, *vec)
			} else {
				t.Pairs = append(t.Pairs, Pair{Key: start.Name.Local, Value: text.String()})
			}
			return nil
		}
	}
}

// ParseTemplate reads a template as one.vm.allocate and one.vm.update
// accept it: OpenNebula's text syntax (KEY = value, KEY = "quoted value",
// KEY = [ K = v, ... ], # comments) or an XML <TEMPLATE> document. Keys
// are upper-cased. Errors wrap ErrTemplateSyntax and give the line.
func ParseTemplate(text string) (Template, error) {
	if s := strings.TrimSpace(text); strings.HasPrefix(s, "<") {
		var t Template
		if err := xml.Unmarshal([]byte(s), &t); err != nil {
			return Template{}, fmt.Errorf("%w: %v", ErrTemplateSyntax, err)
		}
		return t, nil
	}
	p := &tplParser{src: []rune(text), line: 1}
	return p.parse()
}

type tplParser struct {
	src  []rune
	pos  int
	line int
}

func (p *tplParser) errf(format string, args ...interface{}) error {
	return fmt.Errorf("%w: line %d: %s", ErrTemplateSyntax, p.line, fmt.Sprintf(format, args...))
}

func (p *tplParser) peek() rune {
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *tplParser) next() rune {
	r := p.peek()
	if r != 0 {
		p.pos++
		if r == '\n' {
			p.line++
		}
	}
	return r
}

// skip passes blanks (and newlines and commas if nl) and comments.
func (p *tplParser) skip(nl bool) {
	for {
		r := p.peek()
		switch {
		case r == '#':
			for p.peek() != '\n' && p.peek() != 0 {
				p.next()
			}
		case r == ' ' || r == '\t' || r == '\r':
			p.next()
		case nl && (r == '\n' || r == ','):
			p.next()
		default:
			return
		}
	}
}

func (p *tplParser) parse() (Template, error) {
	var t Template
	for {
		p.skip(true)
		if p.peek() == 0 {
			return t, nil
		}
		key, err := p.key()
		if err != nil {
			return Template{}, err
		}
		p.skip(false)
		if p.next() != '=' {
			return Template{}, p.errf("want = after %s", key)
		}
		p.skip(false)
		if p.peek() == '[' {
			p.next()
			v, err := p.vector(key)
			if err != nil {
				return Template{}, err
			}
			t.Vectors = append(t.Vectors, v)
			continue
		}
		val, err := p.value()
		if err != nil {
			return Template{}, err
		}
		t.Pairs = append(t.Pairs, Pair{Key: key, Value: val})
		p.skip(false)
		if r := p.peek(); r != '\n' && r != 0 && r != ',' {
			return Template{}, p.errf("unexpected %q after %s", r, key)
		}
	}
}

func (p *tplParser) key() (string, error) {
	start := p.pos
	for {
		r := p.peek()
		if r == '_' || r == '-' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			p.next()
			continue
		}
		break
	}
	if p.pos == start {
		return "", p.errf("want an attribute name, got %q", p.peek())
	}
	return strings.ToUpper(string(p.src[start:p.pos])), nil
}

func (p *tplParser) vector(key string) (Vector, error) {
	v := Vector{Key: key}
	for {
		p.skip(true)
		switch p.peek() {
		case ']':
			p.next()
			return v, nil
		case 0:
			return Vector{}, p.errf("vector %s is not closed", key)
		}
		k, err := p.key()
		if err != nil {
			return Vector{}, err
		}
		p.skip(false)
		if p.next() != '=' {
			return Vector{}, p.errf("want = after %s in %s", k, key)
		}
		p.skip(false)
		val, err := p.value()
		if err != nil {
			return Vector{}, err
		}
		v.Pairs = append(v.Pairs, Pair{Key: k, Value: val})
		p.skip(false)
		if r := p.peek(); r != '\n' && r != ',' && r != ']' {
			return Vector{}, p.errf("unexpected %q after %s in %s", r, k, key)
		}
	}
}

func (p *tplParser) value() (string, error) {
	if p.peek() == '"' {
		p.next()
		var b strings.Builder
		for {
			r := p.next()
			switch r {
			case 0:
				return "", p.errf("unterminated string")
			case '\\':
				// Only \" is an escape (oned's unescape); any
				// other backslash is itself.
				if p.peek() == '"' {
					p.next()
					b.WriteRune('"')
				} else {
					b.WriteRune(r)
				}
			case '"':
				return b.String(), nil
			default:
				b.WriteRune(r)
			}
		}
	}
	start := p.pos
	for {
		r := p.peek()
		if r == 0 || r == '\n' || r == ',' || r == ']' || r == '#' {
			break
		}
		p.next()
	}
	return strings.TrimSpace(string(p.src[start:p.pos])), nil
}

// Keys lists the attribute names, sorted (for tests and messages).
func (t Template) Keys() []string {
	var ks []string
	for _, p := range t.Pairs {
		ks = append(ks, p.Key)
	}
	for _, v := range t.Vectors {
		ks = append(ks, v.Key)
	}
	sort.Strings(ks)
	return ks
}
