package yamlstrict

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decode decodes n into v (a pointer to a struct with yaml tags) after
// Check, so that an unknown key or a value of the wrong shape is refused
// with its path (below path) and line.
func Decode(n *yaml.Node, v any, path string) error {
	if err := Check(n, reflect.TypeOf(v).Elem(), path); err != nil {
		return err
	}
	if err := n.Decode(v); err != nil {
		return &Error{Line: n.Line, Path: path, Err: cleanYAML(err)}
	}
	return nil
}

var (
	durationType    = reflect.TypeOf(time.Duration(0))
	unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
)

// Check walks a YAML node against a Go type (by its yaml tags) and
// reports the first unknown key, or a value of the wrong shape (a list
// for a scalar...), as an *Error with its line and path below path. A
// type with its own UnmarshalYAML is decoded to find its errors; an
// *Error it returns gets path before its own.
func Check(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			var se *Error
			if errors.As(err, &se) {
				return Prefix(path, se)
			}
			return &Error{Line: n.Line, Path: path, Err: cleanYAML(err)}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(n, t, path)
	case reflect.Slice:
		return checkSlice(n, t, path)
	case reflect.Map:
		if n.Kind != yaml.MappingNode && !isNull(n) {
			return &Error{Line: n.Line, Path: path, Err: errors.New("expected a mapping")}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := Check(n.Content[i+1], t.Elem(), Join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
		return nil
	}
	return checkScalar(n, t, path)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func checkStruct(n *yaml.Node, t reflect.Type, path string) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &Error{Line: n.Line, Path: path, Err: errors.New("expected a mapping of keys")}
	}
	fields := yamlFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := Join(path, k.Value)
		f, ok := fields[k.Value]
		if !ok {
			return &Error{Line: k.Line, Path: key,
				Err: fmt.Errorf("%w (known here: %s)", ErrUnknownKey, strings.Join(sortedKeys(fields), ", "))}
		}
		if err := Check(val, f.Type, key); err != nil {
			return err
		}
	}
	return nil
}

func checkSlice(n *yaml.Node, t reflect.Type, path string) error {
	if t.Elem().Kind() == reflect.Uint8 || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return &Error{Line: n.Line, Path: path, Err: errors.New("expected a list")}
	}
	for i, item := range n.Content {
		if err := Check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

func checkScalar(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.ScalarNode {
		return &Error{Line: n.Line, Path: path, Err: errors.New("expected a single value")}
	}
	if t == durationType {
		if _, err := time.ParseDuration(n.Value); err != nil && n.Value != "0" {
			return &Error{Line: n.Line, Path: path,
				Err: fmt.Errorf("%q is not a duration (e.g. 90s, 5m, 1h30m)", n.Value)}
		}
		return nil
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		return &Error{Line: n.Line, Path: path, Err: fmt.Errorf("%q is not %s", n.Value, kindName(t))}
	}
	return nil
}

// Keys fails unless n is a mapping whose keys are all in allowed, for an
// UnmarshalYAML that reads the keys itself; paths are relative to n.
func Keys(n *yaml.Node, allowed ...string) error {
	if n.Kind != yaml.MappingNode {
		return &Error{Line: n.Line, Err: fmt.Errorf("expected a mapping with keys %s", strings.Join(allowed, ", "))}
	}
	for i := 0; i < len(n.Content); i += 2 {
		k := n.Content[i]
		ok := false
		for _, a := range allowed {
			ok = ok || k.Value == a
		}
		if !ok {
			return &Error{Line: k.Line, Path: k.Value,
				Err: fmt.Errorf("%w (known here: %s)", ErrUnknownKey, strings.Join(allowed, ", "))}
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
	sort.Strings(out)
	return out
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
