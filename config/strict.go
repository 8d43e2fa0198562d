package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// decodeStrict decodes node into v (a pointer to a struct with yaml tags),
// refusing any key the struct does not have, and naming the dotted key
// and line of every problem.
func decodeStrict(n *yaml.Node, v any, prefix, file string) error {
	if err := checkKeys(n, reflect.TypeOf(v).Elem(), prefix, file); err != nil {
		return err
	}
	if err := n.Decode(v); err != nil {
		return &Error{File: file, Line: n.Line, Key: prefix, Err: cleanYAML(err)}
	}
	return nil
}

var (
	durationType    = reflect.TypeOf(time.Duration(0))
	unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
)

// checkKeys walks a YAML node against a Go type and reports the first
// unknown key, or a value of the wrong shape (a list for a scalar...),
// with its line.
func checkKeys(n *yaml.Node, t reflect.Type, path, file string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		// It checks its own keys (energy.FuzzyConfig): decode it here to
		// name the key at fault.
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			return &Error{File: file, Line: n.Line, Key: path, Err: cleanYAML(err)}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return &Error{File: file, Line: n.Line, Key: path, Err: errors.New("expected a mapping of keys")}
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := join(path, k.Value)
			f, ok := fields[k.Value]
			if !ok {
				return &Error{File: file, Line: k.Line, Key: key,
					Err: fmt.Errorf("%w (known here: %s)", ErrUnknownKey, strings.Join(sortedKeys(fields), ", "))}
			}
			if err := checkKeys(val, f.Type, key, file); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return &Error{File: file, Line: n.Line, Key: path, Err: errors.New("expected a list")}
		}
		for i, item := range n.Content {
			if err := checkKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), file); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode && !(n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
			return &Error{File: file, Line: n.Line, Key: path, Err: errors.New("expected a mapping")}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkKeys(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), file); err != nil {
				return err
			}
		}
	default:
		if n.Kind != yaml.ScalarNode {
			return &Error{File: file, Line: n.Line, Key: path, Err: errors.New("expected a single value")}
		}
		if t == durationType {
			if _, err := time.ParseDuration(n.Value); err != nil && n.Value != "0" {
				return &Error{File: file, Line: n.Line, Key: path,
					Err: fmt.Errorf("%q is not a duration (e.g. 90s, 5m, 1h30m)", n.Value)}
			}
			return nil
		}
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			return &Error{File: file, Line: n.Line, Key: path, Err: fmt.Errorf("%q is not %s", n.Value, kindName(t))}
		}
	}
	return nil
}

func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if strings.Contains(tag, ",inline") {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

func sortedKeys(m map[string]reflect.StructField) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// cleanYAML keeps yaml.v3's message (which names the line) without its
// "yaml: unmarshal errors:" preamble.
func cleanYAML(err error) error {
	msg := strings.TrimSpace(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:"))
	return errors.New(strings.ReplaceAll(msg, "\n ", ";"))
}

// syntaxError splits yaml.v3's syntax error ("yaml: line 3: mapping
// values are not allowed in this context") into its line and the rest.
func syntaxError(err error) (int, error) {
	var line int
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr != nil {
		return 1, errors.New(msg)
	}
	_, rest, _ := strings.Cut(msg, ": ")
	return line, errors.New(rest)
}

// kindName says what a scalar of type t must be, for errors.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a " + t.String()
}
