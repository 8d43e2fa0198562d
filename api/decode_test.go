package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

func TestDecodeLeaseRequest(t *testing.T) {
	var r LeaseRequest
	body := `{"name":"web","vms":4,"cpu":0.5,"memory":2048,"image":"debian","start":"+1h",
		"not_before":"2030-01-01T00:00:00Z","duration":"01:30:00","deadline":"+5h","class":"migratable",
		"origin":"local","real_duration":"1h"}` + "\n\t "
	if err := decodeJSON([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	want := LeaseRequest{Name: "web", VMs: 4, CPU: 0.5, Memory: 2048, Image: "debian", Start: "+1h",
		NotBefore: "2030-01-01T00:00:00Z", Duration: "01:30:00", Deadline: "+5h", Class: "migratable",
		Origin: "local", RealDuration: "1h"}
	if r != want {
		t.Errorf("got %+v", r)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 3 << 20: "3 MiB", 512 << 10: "512 KiB", 1000: "1000 bytes"} {
		if got := byteSize(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

// FuzzDecodeLeaseRequest: the decoder never panics; it either decodes a
// request that survives a round trip, or returns a 400/413 *httpError with
// a message.
func FuzzDecodeLeaseRequest(f *testing.F) {
	for _, s := range []string{
		`{"vms":1,"duration":"1h"}`, `{"vms":"1"}`, `{"vms":1,}`, `{"x":1}`, `[]`, `null`, ``, `{}{}`,
		`{"vms":1e400}`, `{"cpu":-0.5,"memory":9223372036854775808}`, `{"name":"\ud800"}`, "\xff{",
		`{"vms":1} x`, `{"vms":{"a":[1,2]}}`, `{"VMS":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r LeaseRequest
		err := decodeJSON(b, &r)
		if err != nil {
			var he *httpError
			if !errors.As(err, &he) || he.msg == "" || (he.status != http.StatusBadRequest && he.status != http.StatusRequestEntityTooLarge) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		// Invalid UTF-8 becomes U+FFFD on the way out: compare after one
		// round.
		var r2 LeaseRequest
		if err := decodeJSON(again, &r2); err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if again2, _ := json.Marshal(r2); !bytes.Equal(again, again2) {
			t.Fatalf("round trip: %s -> %s", again, again2)
		}
	})
}
