package workload

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxXMLDepth bounds element nesting; LWF needs six levels.
const maxXMLDepth = 64

// xnode is one XML element with the line it starts on.
type xnode struct {
	name     string
	attrs    map[string]string
	children []*xnode
	line     int
	path     string // e.g. "lease-workload/lease-requests/lease-request[2]"
}

// parseXML reads a whole document into a tree of elements, dropping text,
// comments and processing instructions. Each element's path gets an index
// ("[n]", 1-based) when its parent has several children of its name.
func parseXML(r io.Reader, name string) (*xnode, error) {
	dec := xml.NewDecoder(r)
	var root *xnode
	var stack []*xnode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		line, _ := dec.InputPos()
		if err != nil {
			return nil, xmlSyntax(name, line, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name.Local, attrs: map[string]string{}, line: line}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, &ParseError{File: name, Line: line, Field: n.name, Msg: "a second root element", Err: ErrSyntax}
				}
				root = n
			} else {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			}
			if stack = append(stack, n); len(stack) > maxXMLDepth {
				return nil, &ParseError{File: name, Line: line, Field: n.name, Msg: "elements nested too deep", Err: ErrSyntax}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil {
		return nil, &ParseError{File: name, Msg: "no XML element", Err: ErrSyntax}
	}
	setPaths(root, "")
	return root, nil
}

// setPaths names every element by its path from the root.
func setPaths(n *xnode, parent string) {
	if parent == "" {
		n.path = n.name
	}
	count := map[string]int{}
	for _, c := range n.children {
		count[c.name]++
	}
	seen := map[string]int{}
	for _, c := range n.children {
		seen[c.name]++
		c.path = n.path + "/" + c.name
		if count[c.name] > 1 {
			c.path += fmt.Sprintf("[%d]", seen[c.name])
		}
		setPaths(c, n.path)
	}
}

func xmlSyntax(name string, line int, err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return &ParseError{File: name, Line: se.Line, Msg: "not XML: " + se.Msg, Err: ErrSyntax, Cause: err}
	}
	return &ParseError{File: name, Line: line, Msg: err.Error(), Err: ErrSyntax, Cause: err}
}

// pos is where n is, naming the element (or its attribute, when given).
func (n *xnode) pos(file, attr string) pos {
	field := n.path
	if attr != "" {
		field += "@" + attr
	}
	return pos{file: file, line: n.line, field: field}
}

// only checks that n has no child elements other than the allowed ones.
func (n *xnode) only(file string, allowed ...string) error {
	for _, c := range n.children {
		ok := false
		for _, a := range allowed {
			ok = ok || c.name == a
		}
		if !ok {
			return c.pos(file, "").syntax("unknown element <%s> in <%s> (want %s)", c.name, n.name, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// all returns the children named name.
func (n *xnode) all(name string) []*xnode {
	var out []*xnode
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// one returns the single child named name, nil when there is none, and an
// error when there are several, or none and required.
func (n *xnode) one(file, name string, required bool) (*xnode, error) {
	cs := n.all(name)
	switch {
	case len(cs) > 1:
		return nil, cs[1].pos(file, "").syntax("more than one <%s> in <%s>", name, n.name)
	case len(cs) == 0 && required:
		return nil, n.pos(file, "").syntax("missing <%s>", name)
	case len(cs) == 0:
		return nil, nil
	}
	return cs[0], nil
}

// attr returns attribute a, an error when it is required and absent.
func (n *xnode) attr(file, a string, required bool) (string, bool, error) {
	v, ok := n.attrs[a]
	if !ok && required {
		return "", false, n.pos(file, a).syntax("missing attribute %s", a)
	}
	return strings.TrimSpace(v), ok, nil
}
