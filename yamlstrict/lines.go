package yamlstrict

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Lines walks a document and returns the line of every key and list
// item by path ("daemon.store", "hosts[0].name"), so that a refusal found
// after decoding still names its line. A mapping that has the same key
// twice is refused with an *Error wrapping ErrDuplicateKey.
func Lines(doc *yaml.Node) (map[string]int, error) {
	ls := map[string]int{}
	if err := walkLines(ls, doc, ""); err != nil {
		return nil, err
	}
	return ls, nil
}

func walkLines(ls map[string]int, n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.MappingNode:
		if k, at := Duplicate(n); k != nil {
			return &Error{Line: k.Line, Path: Join(path, k.Value), Err: fmt.Errorf("%w (first at line %d)", ErrDuplicateKey, at)}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := Join(path, k.Value)
			ls[key] = k.Line
			if err := walkLines(ls, v, key); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			key := fmt.Sprintf("%s[%d]", path, i)
			ls[key] = item.Line
			if err := walkLines(ls, item, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// Duplicate returns the first key of mapping n written a second time,
// and the line of its first writing; nil when every key is distinct.
func Duplicate(n *yaml.Node) (*yaml.Node, int) {
	first := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if at, dup := first[k.Value]; dup {
			return k, at
		}
		first[k.Value] = k.Line
	}
	return nil, 0
}

// Syntax splits yaml.v3's syntax error ("yaml: line 3: mapping values
// are not allowed in this context") into its line (0 when it names none)
// and the rest.
func Syntax(err error) (int, string) {
	var line int
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr != nil {
		return 0, msg
	}
	_, rest, _ := strings.Cut(msg, ": ")
	return line, rest
}

// cleanYAML keeps yaml.v3's message (which names the line) without its
// "yaml: unmarshal errors:" preamble.
func cleanYAML(err error) error {
	msg := strings.TrimSpace(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:"))
	return errors.New(strings.ReplaceAll(msg, "\n ", ";"))
}
