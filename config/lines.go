package config

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bora-sched/bora/yamlstrict"
)

// lines maps every key path of a document ("daemon.store", "hosts[0].name")
// to the line it is written on, so that a refusal found after decoding
// (by validation) still names the line.
type lines map[string]int

// keyLines records the line of every key and list item of a document,
// and refuses a mapping that has the same key twice (yamlstrict.Lines).
func keyLines(doc *yaml.Node, file string) (lines, error) {
	ls, err := yamlstrict.Lines(doc)
	if err != nil {
		return nil, fileError(err, file)
	}
	return ls, nil
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
