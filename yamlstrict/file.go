package yamlstrict

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// FileError is a problem in a YAML file of bora's own (an experiment
// file, a federation file): the file, the line (0 when not known), the
// key path ("" for the whole file) and what is wrong. Kind is the
// sentinel of the file's format, which the error wraps.
type FileError struct {
	File string
	Line int
	Path string
	Msg  string
	Kind error
}

func (e *FileError) Error() string {
	at := e.File
	if e.Line > 0 {
		at += ":" + strconv.Itoa(e.Line)
	}
	if e.Path == "" {
		return at + ": " + e.Msg
	}
	return at + ": " + e.Path + ": " + e.Msg
}

// Unwrap returns the format's sentinel.
func (e *FileError) Unwrap() error { return e.Kind }

// DecodeFile decodes data, one YAML document, onto v as Decode does, and
// returns the line of each key path (Lines). Every error is a *FileError
// wrapping kind, named by file and, where known, line and key path.
func DecodeFile(data []byte, file string, v any, kind error) (map[string]int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := Syntax(err)
		return nil, &FileError{File: file, Line: line, Msg: msg, Kind: kind}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &FileError{File: file, Msg: "empty file", Kind: kind}
	}
	lines, err := Lines(doc.Content[0])
	if err == nil {
		if err = Decode(doc.Content[0], v, ""); err == nil {
			return lines, nil
		}
	}
	var se *Error
	if errors.As(err, &se) {
		return nil, &FileError{File: file, Line: se.Line, Path: se.Path, Msg: se.Err.Error(), Kind: kind}
	}
	return nil, &FileError{File: file, Msg: err.Error(), Kind: kind}
}

// LoadFile reads the file at path and hands its text and path to parse
// (a file format's Parse, which names the file in its errors). A path
// that is not a regular file (a directory, a device such as /dev/zero)
// is refused without reading it.
func LoadFile[T any](path string, parse func(data []byte, file string) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return zero, err
	} else if !st.Mode().IsRegular() {
		return zero, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return zero, err
	}
	return parse(data, path)
}
