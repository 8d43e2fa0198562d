package config

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/scheduler"
	"github.com/bora-sched/bora/scheduler/preempt"
	"github.com/bora-sched/bora/yamlstrict"
)

// The one way a setting reaches a Config: struct decoding by yaml tags.
// The file is walked against the structures; `--set key=value` (Set)
// builds the same YAML tree for one key and goes through the same walk,
// so both know the same keys and say the same things of a bad value.
//
// A yaml tag may hold dots (scheduler's `preemption.policy`): the key is
// then nested in the file. A `bora` tag gives a scalar's unit: "cores"
// (a number of cores, kept in hundredths), "mb" (a positive number of
// MB) or "lower" (a name, lowercased). Lists, mappings and types with
// their own UnmarshalYAML are decoded by yamlstrict.Decode.

// tagField is one field of a structure level, by its key path.
type tagField struct {
	path  []string // the yaml tag split at dots: ["preemption", "policy"]
	index []int    // through inline structures
	unit  string   // the bora tag
}

// tagFields lists the fields of struct type t that have a yaml tag.
func tagFields(t reflect.Type) []tagField {
	var out []tagField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if !ok || !f.IsExported() || name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for _, sub := range tagFields(f.Type) {
				sub.index = append([]int{i}, sub.index...)
				out = append(out, sub)
			}
			continue
		}
		out = append(out, tagField{path: strings.Split(name, "."), index: []int{i}, unit: f.Tag.Get("bora")})
	}
	return out
}

// decodeInto applies mapping n onto the structure v (addressable), its
// keys below path. With single, only single values may be set (Set).
// Errors are *yamlstrict.Error values.
func decodeInto(n *yaml.Node, v reflect.Value, path string, single bool) error {
	return decodeLevel(n, v, tagFields(v.Type()), 0, path, single)
}

// decodeLevel applies mapping n onto fields, whose key paths agree on
// their first depth elements.
func decodeLevel(n *yaml.Node, v reflect.Value, fields []tagField, depth int, path string, single bool) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &yamlstrict.Error{Line: n.Line, Path: path, Err: errors.New("expected a mapping of keys")}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := yamlstrict.Join(path, k.Value)
		var leaf *tagField
		var below []tagField
		for j := range fields {
			switch f := fields[j]; {
			case f.path[depth] != k.Value:
			case len(f.path) == depth+1:
				leaf = &fields[j]
			default:
				below = append(below, f)
			}
		}
		var err error
		switch {
		case leaf != nil:
			err = decodeField(k, val, v.FieldByIndex(leaf.index), leaf.unit, key, single)
		case below != nil:
			err = decodeLevel(val, v, below, depth+1, key, single)
		default:
			err = &yamlstrict.Error{Line: k.Line, Path: key,
				Err: fmt.Errorf("%w (known here: %s)", ErrUnknownKey, strings.Join(knownKeys(fields, depth), ", "))}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func knownKeys(fields []tagField, depth int) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		if k := f.path[depth]; !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// decodeField sets field f (key path key, written at k) from n.
func decodeField(k, n *yaml.Node, f reflect.Value, unit, key string, single bool) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	t := f.Type()
	parse := scalarParser(t, unit)
	switch {
	case parse != nil:
		if n.Kind != yaml.ScalarNode {
			return &yamlstrict.Error{Line: k.Line, Path: key, Err: errors.New("expected a single value")}
		}
		if n.Tag == "!!null" {
			return nil
		}
		x, err := parse(n.Value)
		if err != nil {
			return &yamlstrict.Error{Line: k.Line, Path: key, Err: err}
		}
		f.Set(reflect.ValueOf(x).Convert(t))
		return nil
	case single && n.Kind == yaml.ScalarNode:
		return &yamlstrict.Error{Line: k.Line, Path: key,
			Err: fmt.Errorf("%w (not a single value: set it in the file)", ErrUnknownKey)}
	case t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(unmarshalerType):
		return decodeInto(n, f, key, single)
	}
	return yamlstrict.Decode(n, f.Addr().Interface(), key)
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	policyType   = reflect.TypeOf(preempt.Policy(""))
)

// modeParsers read the scheduler's typed modes (scheduler/modes.go) with
// their Parse functions, so a bad value is refused as it is decoded, with
// the same message as scheduler.Config.Validate's.
var modeParsers = map[reflect.Type]func(string) (any, error){
	reflect.TypeOf(scheduler.Backfilling("")): func(v string) (any, error) { return scheduler.ParseBackfilling(v) },
	reflect.TypeOf(scheduler.Suspension("")):  func(v string) (any, error) { return scheduler.ParseSuspension(v) },
	reflect.TypeOf(scheduler.Exclusion("")):   func(v string) (any, error) { return scheduler.ParseExclusion(v) },
	reflect.TypeOf(scheduler.Migration("")):   func(v string) (any, error) { return scheduler.ParseMigration(v) },
	reflect.TypeOf(scheduler.Storage("")):     func(v string) (any, error) { return scheduler.ParseStorage(v) },
}

// scalarParser reads a single value of type t (with the unit of its bora
// tag); nil when t is not a single value.
func scalarParser(t reflect.Type, unit string) func(string) (any, error) {
	if parse, ok := modeParsers[t]; ok {
		return parse
	}
	switch {
	case t == durationType:
		return func(v string) (any, error) { return scheduler.ParseDuration(v) }
	case t == policyType:
		return func(v string) (any, error) { return preempt.ParsePolicy(v) }
	case unit == "cores":
		return parseCores
	case unit == "mb":
		return parseMegabytes
	}
	switch t.Kind() {
	case reflect.String:
		if unit == "lower" {
			return func(v string) (any, error) { return strings.ToLower(v), nil }
		}
		return func(v string) (any, error) { return v, nil }
	case reflect.Bool:
		return parseBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v string) (any, error) {
			var n any
			var err error
			if t.Kind() >= reflect.Uint {
				n, err = strconv.ParseUint(v, 10, t.Bits())
			} else {
				n, err = strconv.ParseInt(v, 10, t.Bits())
			}
			if err != nil {
				return nil, fmt.Errorf("%q is not a whole number", v)
			}
			return n, nil
		}
	case reflect.Float32, reflect.Float64:
		return func(v string) (any, error) {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", v)
			}
			return x, nil
		}
	}
	return nil
}

func parseBool(v string) (any, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, fmt.Errorf("%q is not true or false", v)
	}
	return b, nil
}

// parseCores reads a number of cores (e.g. 1, 0.5) into hundredths of a
// core.
func parseCores(v string) (any, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 {
		return nil, fmt.Errorf("%q is not a positive number of cores", v)
	}
	return int64(f*100 + 0.5), nil
}

func parseMegabytes(v string) (any, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("%q is not a positive number of MB", v)
	}
	return n, nil
}

// Set changes one setting by its dotted key (scheduler.overheads.delta,
// cluster.hosts, energy.policy, daemon.store...), as `--set key=value`
// does: the key becomes a YAML tree holding value, decoded as the file
// is. Lists and mappings (hosts, energy.fuzzy) are set in the file only.
func (c *Config) Set(key, value string) error {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	parts := strings.Split(key, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		n = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: parts[i]}, n}}
	}
	err := decodeInto(n, reflect.ValueOf(c).Elem(), "", true)
	var se *yamlstrict.Error
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %w", se.Path, se.Err)
	}
	return err
}

// FullKey expands the short keys that `bora simulate --set` and
// experiment files accept to their paths in the file: a key without a
// section (backfilling) and the scheduler's subsections (overheads.*,
// preemption.*) are the scheduler's.
func FullKey(k string) string {
	first, _, dotted := strings.Cut(k, ".")
	if !dotted && first != "cluster" && first != "workload" || first == "overheads" || first == "preemption" {
		return "scheduler." + k
	}
	return k
}
