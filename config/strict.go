package config

import (
	"errors"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/yamlstrict"
)

// decodeStrict decodes node into v (a pointer to a struct with yaml tags),
// refusing any key the struct does not have, and naming the dotted key
// and line of every problem (yamlstrict.Decode).
func decodeStrict(n *yaml.Node, v any, prefix, file string) error {
	return fileError(yamlstrict.Decode(n, v, prefix), file)
}

// fileError turns a *yamlstrict.Error into an *Error naming file too.
func fileError(err error, file string) error {
	var se *yamlstrict.Error
	if !errors.As(err, &se) {
		return err
	}
	key := se.Path
	if key == "" {
		key = "(document)"
	}
	return &Error{File: file, Line: se.Line, Key: key, Err: se.Err}
}

// syntaxError splits yaml.v3's syntax error into its line (1 when it
// names none) and the rest.
func syntaxError(err error) (int, error) {
	line, msg := yamlstrict.Syntax(err)
	if line == 0 {
		line = 1
	}
	return line, errors.New(msg)
}

func join(prefix, key string) string { return yamlstrict.Join(prefix, key) }
