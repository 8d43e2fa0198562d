// Package yamlstrict reads YAML strictly: it is the one checker of keys
// that bora's configuration file (config), the energy section's fuzzy
// system (energy.FuzzyConfig) and the trace reader (workload) share.
//
// Check walks a document against a Go type by its yaml tags and refuses
// an unknown key, or a value of the wrong shape, naming the key path and
// its line; Keys does the same for a mapping whose keys a hand-written
// UnmarshalYAML reads; Lines records the line of every key and refuses a
// key written twice in one mapping (yaml.v3 would keep the second
// silently); Syntax splits a yaml.v3 syntax error into its line and text.
//
// Its errors are *Error values (line, key path, cause); callers add the
// file name. It imports nothing from bora.
package yamlstrict
