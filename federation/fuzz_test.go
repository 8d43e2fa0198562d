package federation

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse: any text gives a federation file or a *FileError wrapping
// ErrFile; never a panic.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("../examples/federation.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("clusters: []\n"))
	f.Add([]byte("clusters: [{name: a, hosts: -1}]\n"))
	f.Add([]byte("gateway: {policy: nope}\n"))
	f.Add([]byte("["))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(data, "fuzz.yaml")
		if err == nil {
			return
		}
		var fe *FileError
		if !errors.As(err, &fe) || !errors.Is(err, ErrFile) {
			t.Fatalf("error %v is not a *FileError wrapping ErrFile", err)
		}
	})
}
