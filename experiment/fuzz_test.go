package experiment

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse: any text gives an experiment or a *SpecError wrapping
// ErrSpec; never a panic.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("../examples/experiments/ch3-local-share.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("name: x\nmodel: lublin99\n"))
	f.Add([]byte("model: das2\nvary: {param: m_e, values: [1]}\npolicies: [{name: A, gateway: nope}]\n"))
	f.Add([]byte("seeds: -1\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(data, "fuzz.yaml")
		if err == nil {
			return
		}
		var se *SpecError
		if !errors.As(err, &se) || !errors.Is(err, ErrSpec) {
			t.Fatalf("error %v is not a *SpecError wrapping ErrSpec", err)
		}
	})
}
