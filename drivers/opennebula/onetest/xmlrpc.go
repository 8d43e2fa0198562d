package onetest

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// XML-RPC fault codes xmlrpc-c (oned's XML-RPC library) uses.
const (
	faultType         = -501 // a parameter of the wrong type
	faultIndex        = -502 // too few parameters
	faultParse        = -503 // the call does not parse
	faultNoSuchMethod = -506 // unknown method
)

// fault is an XML-RPC fault answer (not an OpenNebula error: oned
// answers those inside a normal response).
type fault struct {
	code int
	msg  string
}

func (f *fault) Error() string { return fmt.Sprintf("fault %d: %s", f.code, f.msg) }

// decodeCall reads a <methodCall>: the method name and the parameters as
// Go values (int64, bool, string, float64, []interface{},
// map[string]interface{}).
func decodeCall(r io.Reader) (string, []interface{}, error) {
	d := xml.NewDecoder(r)
	var method string
	var params []interface{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if method == "" {
				return "", nil, errors.New("no methodName")
			}
			return method, params, nil
		}
		if err != nil {
			return "", nil, err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "methodName":
			if err := d.DecodeElement(&method, &se); err != nil {
				return "", nil, err
			}
			method = strings.TrimSpace(method)
		case "value":
			v, err := decodeValue(d)
			if err != nil {
				return "", nil, err
			}
			params = append(params, v)
		}
	}
}

// decodeValue reads the content of a <value> up to its end tag.
func decodeValue(d *xml.Decoder) (interface{}, error) {
	var text strings.Builder
	var out interface{}
	typed := false
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			text.Write(t)
		case xml.StartElement:
			typed = true
			v, err := decodeTyped(d, t)
			if err != nil {
				return nil, err
			}
			out = v
		case xml.EndElement:
			if !typed {
				return text.String(), nil // untyped: a string
			}
			return out, nil
		}
	}
}

func decodeTyped(d *xml.Decoder, se xml.StartElement) (interface{}, error) {
	switch se.Name.Local {
	case "array":
		var out []interface{}
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			switch t := tok.(type) {
			case xml.StartElement:
				if t.Name.Local == "value" {
					v, err := decodeValue(d)
					if err != nil {
						return nil, err
					}
					out = append(out, v)
				}
			case xml.EndElement:
				if t.Name.Local == "array" {
					return out, nil
				}
			}
		}
	case "struct":
		out := map[string]interface{}{}
		var name string
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			switch t := tok.(type) {
			case xml.StartElement:
				switch t.Name.Local {
				case "name":
					if err := d.DecodeElement(&name, &t); err != nil {
						return nil, err
					}
				case "value":
					v, err := decodeValue(d)
					if err != nil {
						return nil, err
					}
					out[name] = v
				}
			case xml.EndElement:
				if t.Name.Local == "struct" {
					return out, nil
				}
			}
		}
	}
	var s string
	if err := d.DecodeElement(&s, &se); err != nil {
		return nil, err
	}
	switch se.Name.Local {
	case "int", "i4", "i8":
		return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	case "boolean":
		switch strings.TrimSpace(s) {
		case "1":
			return true, nil
		case "0":
			return false, nil
		}
		return nil, fmt.Errorf("bad boolean %q", s)
	case "double":
		return strconv.ParseFloat(strings.TrimSpace(s), 64)
	case "nil":
		return nil, nil
	default: // string, base64, dateTime.iso8601
		return s, nil
	}
}

// params gives typed access to a call's parameters the way xmlrpc-c's
// paramList does: a missing one or one of the wrong type is a fault.
type params []interface{}

func typeName(v interface{}) string {
	switch v.(type) {
	case int64:
		return "int"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		return "double"
	case []interface{}:
		return "array"
	case map[string]interface{}:
		return "struct"
	}
	return "nil"
}

func (p params) get(i int, want string) (interface{}, error) {
	if i >= len(p) {
		return nil, &fault{faultIndex, fmt.Sprintf("Not enough parameters: need parameter %d, got %d", i, len(p))}
	}
	if got := typeName(p[i]); got != want {
		return nil, &fault{faultType, fmt.Sprintf("Parameter %d is of type %s, expected %s", i, got, want)}
	}
	return p[i], nil
}

func (p params) int(i int) (int, error) {
	v, err := p.get(i, "int")
	if err != nil {
		return 0, err
	}
	return int(v.(int64)), nil
}

func (p params) bool(i int) (bool, error) {
	v, err := p.get(i, "boolean")
	if err != nil {
		return false, err
	}
	return v.(bool), nil
}

func (p params) str(i int) (string, error) {
	v, err := p.get(i, "string")
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// optInt, optBool: an optional trailing parameter (oned reads those only
// when paramList.size() says they are there).
func (p params) optInt(i, def int) (int, error) {
	if i >= len(p) {
		return def, nil
	}
	return p.int(i)
}

func (p params) optBool(i int, def bool) (bool, error) {
	if i >= len(p) {
		return def, nil
	}
	return p.bool(i)
}

// i8 marks a value oned sends as <i8>.
type i8 int64

// encodeResponse writes a <methodResponse> holding one array.
func encodeResponse(w io.Writer, values ...interface{}) error {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\r\n")
	b.WriteString("<methodResponse>\r\n<params>\r\n<param><value><array><data>\r\n")
	for _, v := range values {
		b.WriteString("<value>")
		switch x := v.(type) {
		case bool:
			if x {
				b.WriteString("<boolean>1</boolean>")
			} else {
				b.WriteString("<boolean>0</boolean>")
			}
		case int:
			fmt.Fprintf(&b, "<i4>%d</i4>", x)
		case i8:
			fmt.Fprintf(&b, "<i8>%d</i8>", int64(x))
		case string:
			b.WriteString("<string>")
			xml.EscapeText(&b, []byte(x))
			b.WriteString("</string>")
		default:
			panic(fmt.Sprintf("onetest: cannot encode %T", v))
		}
		b.WriteString("</value>\r\n")
	}
	b.WriteString("</data></array></value></param>\r\n</params>\r\n</methodResponse>\r\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// encodeFault writes an XML-RPC fault.
func encodeFault(w io.Writer, f *fault) error {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\r\n")
	b.WriteString("<methodResponse>\r\n<fault>\r\n<value><struct>\r\n")
	fmt.Fprintf(&b, "<member><name>faultCode</name>\r\n<value><i4>%d</i4></value></member>\r\n", f.code)
	b.WriteString("<member><name>faultString</name>\r\n<value><string>")
	xml.EscapeText(&b, []byte(f.msg))
	b.WriteString("</string></value></member>\r\n</struct></value>\r\n</fault>\r\n</methodResponse>\r\n")
	_, err := io.WriteString(w, b.String())
	return err
}
