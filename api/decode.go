package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxBody is the largest request body the server reads when
// ServerConfig.MaxBody is 0.
const DefaultMaxBody = 1 << 20

// readBody reads at most max bytes of body; a longer body is a 413 naming
// the limit.
func readBody(w http.ResponseWriter, body io.ReadCloser, max int64) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, body, max))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, &httpError{status: http.StatusRequestEntityTooLarge,
			msg: fmt.Sprintf("request body larger than the limit of %s", byteSize(mbe.Limit))}
	case err != nil:
		return nil, badRequest("", "reading the request body: %v", err)
	}
	return b, nil
}

// decodeJSON decodes b, which must hold exactly one JSON object, into v (a
// pointer to a struct), strictly: an unknown field, a value of the wrong
// type, malformed JSON or trailing data is a 400 naming the field or the
// byte offset. It returns nil or an *httpError.
func decodeJSON(b []byte, v any) error {
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) == 0 {
		return badRequest("", "empty request body: want a JSON object")
	}
	if trimmed[0] != '{' {
		return badRequest("", "request body: want a JSON object, got %s", jsonKind(trimmed[0]))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, len(b))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("", "unexpected data after the JSON object at byte offset %d: send exactly one JSON value", dec.InputOffset())
	}
	if !utf8.Valid(b) {
		return invalidUTF8(b)
	}
	return nil
}

// invalidUTF8 is the 400 for a body (a JSON object) that is not valid
// UTF-8. encoding/json would store each bad byte as U+FFFD; the server
// refuses instead, naming the field whose key or value holds the first bad
// byte (json.RawMessage keeps the bytes as sent).
func invalidUTF8(b []byte) *httpError {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(b, &fields)
	first, firstAt := "", len(b)
	for k, v := range fields {
		if at := bytes.Index(b, v); (!utf8.ValidString(k) || !utf8.Valid(v)) && at < firstAt {
			first, firstAt = k, at
		}
	}
	if first == "" || !utf8.ValidString(first) {
		return badRequest("", "request body: not valid UTF-8 (byte offset %d)", badUTF8Offset(b))
	}
	return badRequest(first, "%s: not valid UTF-8: send text as UTF-8", first)
}

// badUTF8Offset is the offset of the first byte of b that is not valid UTF-8.
func badUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// decodeError turns an encoding/json error into a 400 that says what to fix.
func decodeError(err error, size int) *httpError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return badRequest("", "malformed JSON at byte offset %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "malformed JSON at byte offset %d: unexpected end of input", size)
	case errors.As(err, &te):
		if te.Field == "" {
			return badRequest("", "request body: want a JSON object, got %s", te.Value)
		}
		return badRequest(te.Field, "%s: wrong type: want %s, got %s", te.Field, goKind(te.Type), te.Value)
	}
	// encoding/json reports an unknown field only in the message.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if uq, uerr := strconv.Unquote(name); uerr == nil {
			name = uq
		}
		return badRequest(name, "%s: unknown field", name)
	}
	return badRequest("", "malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonKind names the JSON value that starts with c.
func jsonKind(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return fmt.Sprintf("%q", c)
}

// goKind names the JSON a Go type wants.
func goKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// byteSize writes n bytes for a person: "1 MiB", "512 KiB", "100 bytes".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// parseID reads a lease id from the path.
func parseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, badRequest("id", "id: %q is not a lease id (want a non-negative integer)", s)
	}
	return id, nil
}
