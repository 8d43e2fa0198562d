package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/yamlstrict"
)

// maxTreeDepth bounds nesting in JSON and YAML documents; bora's format
// needs three levels.
const maxTreeDepth = 64

// maxAliasNodes bounds the nodes a YAML document may expand to through
// aliases, against alias bombs.
const maxAliasNodes = 1 << 20

// tkind is the shape of a tree node.
type tkind int

const (
	tScalar tkind = iota
	tMap
	tList
)

// tnode is a JSON or YAML value with the line it starts on, so that bora's
// format is read by one walker whatever the syntax.
type tnode struct {
	kind  tkind
	line  int
	text  string   // scalar text ("" for null)
	null  bool     // a JSON null or YAML ~
	keys  []string // map keys, in order
	items []*tnode // map values (parallel to keys) or list items
}

// parseJSONTree reads one JSON document. An empty input gives nil.
func parseJSONTree(data []byte, name string) (*tnode, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	jp := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), name: name, line: 1}
	jp.dec.UseNumber()
	root, err := jp.value(0)
	if err != nil {
		return nil, err
	}
	line := jp.skip()
	if _, err := jp.dec.Token(); err != io.EOF {
		return nil, &ParseError{File: name, Line: line, Msg: "text after the JSON document", Err: ErrSyntax}
	}
	return root, nil
}

// jsonParser builds a tnode tree from encoding/json tokens, counting lines
// as it goes.
type jsonParser struct {
	data    []byte
	dec     *json.Decoder
	name    string
	off     int // offset up to which lines are counted
	line    int // line at off
	pending *tnode
}

// skip moves past blanks, commas and colons to the next token and returns
// its line.
func (jp *jsonParser) skip() int {
	end := int(jp.dec.InputOffset())
	for end < len(jp.data) && strings.IndexByte(" \t\r\n,:", jp.data[end]) >= 0 {
		end++
	}
	if end > jp.off {
		jp.line += bytes.Count(jp.data[jp.off:end], []byte{'\n'})
		jp.off = end
	}
	return jp.line
}

func (jp *jsonParser) token() (json.Token, int, error) {
	line := jp.skip()
	tok, err := jp.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, line, &ParseError{File: jp.name, Line: line, Msg: "not JSON: " + err.Error(), Err: ErrSyntax, Cause: err}
	}
	return tok, line, nil
}

// value reads one JSON value, recursing into objects and arrays.
func (jp *jsonParser) value(depth int) (*tnode, error) {
	tok, line, err := jp.token()
	if err != nil {
		return nil, err
	}
	if depth > maxTreeDepth {
		return nil, &ParseError{File: jp.name, Line: line, Msg: "nested too deep", Err: ErrSyntax}
	}
	n := &tnode{line: line}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			n.kind = tMap
			return n, jp.object(n, depth)
		}
		n.kind = tList
		for jp.dec.More() {
			item, err := jp.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, item)
		}
		_, _, err = jp.token() // ']'
		return n, err
	case nil:
		n.null = true
	case string:
		n.text = t
	default: // json.Number, bool
		n.text = fmt.Sprint(t)
	}
	return n, nil
}

// object reads the members of a JSON object into n; duplicate keys are
// errors, as they are in YAML.
func (jp *jsonParser) object(n *tnode, depth int) error {
	seen := map[string]bool{}
	for jp.dec.More() {
		tok, line, err := jp.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return &ParseError{File: jp.name, Line: line, Field: key, Msg: "duplicate key", Err: ErrSyntax}
		}
		seen[key] = true
		v, err := jp.value(depth + 1)
		if err != nil {
			return err
		}
		n.keys, n.items = append(n.keys, key), append(n.items, v)
	}
	_, _, err := jp.token() // '}'
	return err
}

// parseYAMLTree reads one YAML document. An empty input gives nil; a
// second document is an error.
func parseYAMLTree(r io.Reader, name string) (*tnode, error) {
	dec := yaml.NewDecoder(r)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, yamlSyntax(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, yamlSyntax(name, err)
		}
		return nil, &ParseError{File: name, Line: extra.Line, Msg: "more than one YAML document", Err: ErrSyntax}
	}
	c := yamlConverter{name: name, budget: maxAliasNodes}
	return c.convert(&doc, 0, false)
}

// yamlSyntax turns a yaml.v3 error ("yaml: line 3: ...") into a ParseError.
func yamlSyntax(name string, err error) error {
	line, msg := yamlstrict.Syntax(err)
	return &ParseError{File: name, Line: line, Msg: "not YAML: " + msg, Err: ErrSyntax, Cause: err}
}

// yamlConverter turns yaml.Nodes into tnodes, following aliases within a
// budget of nodes reached through them.
type yamlConverter struct {
	name   string
	budget int
}

func (c *yamlConverter) fail(line int, msg string) error {
	return &ParseError{File: c.name, Line: line, Msg: msg, Err: ErrSyntax}
}

// convert turns y into a tnode; inAlias says y is reached through an alias.
func (c *yamlConverter) convert(y *yaml.Node, depth int, inAlias bool) (*tnode, error) {
	if inAlias {
		c.budget--
	}
	if depth > maxTreeDepth || c.budget < 0 {
		return nil, c.fail(y.Line, "nested too deep or too many alias expansions")
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return nil, nil
		}
		return c.convert(y.Content[0], depth, inAlias)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, c.fail(y.Line, "unknown alias")
		}
		return c.convert(y.Alias, depth+1, true)
	case yaml.ScalarNode:
		null := y.Tag == "!!null"
		text := y.Value
		if null {
			text = ""
		}
		return &tnode{kind: tScalar, line: y.Line, text: text, null: null}, nil
	case yaml.MappingNode, yaml.SequenceNode:
		return c.collection(y, depth, inAlias)
	}
	return nil, c.fail(y.Line, "unexpected YAML node")
}

// collection converts a mapping or a sequence; mapping keys must be
// distinct plain scalars.
func (c *yamlConverter) collection(y *yaml.Node, depth int, inAlias bool) (*tnode, error) {
	n := &tnode{kind: tList, line: y.Line}
	step := 1
	if y.Kind == yaml.MappingNode {
		n.kind, step = tMap, 2
		if len(y.Content)%2 != 0 {
			return nil, c.fail(y.Line, "odd mapping")
		}
		if k, _ := yamlstrict.Duplicate(y); k != nil {
			return nil, &ParseError{File: c.name, Line: k.Line, Field: k.Value, Msg: "duplicate key", Err: ErrSyntax}
		}
	}
	for i := 0; i < len(y.Content); i += step {
		if step == 2 {
			k := y.Content[i]
			switch {
			case k.Kind != yaml.ScalarNode:
				return nil, c.fail(k.Line, "a mapping key must be a plain name")
			case k.Value == "<<":
				return nil, &ParseError{File: c.name, Line: k.Line, Field: "<<", Msg: "merge keys are not supported", Err: ErrSyntax}
			}
			n.keys = append(n.keys, k.Value)
		}
		v, err := c.convert(y.Content[i+step-1], depth+1, inAlias)
		if err != nil {
			return nil, err
		}
		if v == nil {
			v = &tnode{kind: tScalar, line: y.Content[i+step-1].Line, null: true}
		}
		n.items = append(n.items, v)
	}
	return n, nil
}
