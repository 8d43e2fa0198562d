package gateway

import (
	"errors"
	"testing"
)

// FuzzParse: any text gives a configuration that validates, or an error
// wrapping ErrConfig; never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodConfig))
	f.Add([]byte("listen: 1\nclusters: []\n"))
	f.Add([]byte("clusters: [{name: a, url: x, speed: -1}]\n"))
	f.Add([]byte("poll: 0s\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted a configuration that Validate refuses: %v", err)
		}
	})
}
