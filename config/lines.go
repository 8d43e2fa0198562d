package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// lines maps every key path of a document ("daemon.store", "hosts[0].name")
// to the line it is written on, so that a refusal found after decoding
// (by validation) still names the line.
type lines map[string]int

// keyLines walks a document, records the line of every key and list item,
// and refuses a mapping that has the same key twice (yaml.v3 decodes the
// second one over the first without a word).
func keyLines(doc *yaml.Node, file string) (lines, error) {
	ls := lines{}
	if err := ls.walk(doc, "", file); err != nil {
		return nil, err
	}
	return ls, nil
}

func (ls lines) walk(n *yaml.Node, path, file string) error {
	switch n.Kind {
	case yaml.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := join(path, k.Value)
			if at, dup := first[k.Value]; dup {
				return &Error{File: file, Line: k.Line, Key: key,
					Err: fmt.Errorf("%w (first at line %d)", ErrDuplicateKey, at)}
			}
			first[k.Value] = k.Line
			ls[key] = k.Line
			if err := ls.walk(v, key, file); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			key := fmt.Sprintf("%s[%d]", path, i)
			ls[key] = item.Line
			if err := ls.walk(item, key, file); err != nil {
				return err
			}
		}
	}
	return nil
}

// line is where key is written; for a key left out, where the first of
// near is written (the key that made it needed: api.tcp for a missing
// api.tls_cert), or else its nearest written parent ("hosts[2]" for
// "hosts[2].cpu"); 1 when none is written.
func (ls lines) line(key string, near ...string) int {
	for _, k := range append([]string{key}, near...) {
		if l, ok := ls[k]; ok {
			return l
		}
	}
	for k := parent(key); k != ""; k = parent(k) {
		if l, ok := ls[k]; ok {
			return l
		}
	}
	return 1
}

// parent is the key path one level up: "a.b[2].c" -> "a.b[2]" -> "a.b"
// -> "a" -> "".
func parent(key string) string {
	i := strings.LastIndexAny(key, ".[")
	if i < 0 {
		return ""
	}
	return key[:i]
}
