package fielderr

import (
	"errors"
	"fmt"
	"testing"
)

func TestError(t *testing.T) {
	sentinel := errors.New("invalid config")
	tests := []struct {
		name    string
		err     *Error
		want    string
		wrapped error
	}{
		{"new", New("hosts[0].uri", "scheme %q is not supported", "ftp"),
			`hosts[0].uri: scheme "ftp" is not supported`, nil},
		{"wrap", Wrap(sentinel, "alpha", "must be in [0, 1], got %g", 1.5),
			"alpha: must be in [0, 1], got 1.5", sentinel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if got := errors.Unwrap(tt.err); got != tt.wrapped {
				t.Errorf("Unwrap() = %v, want %v", got, tt.wrapped)
			}
			var fe *Error
			if !errors.As(fmt.Errorf("loading: %w", tt.err), &fe) || fe.Path != tt.err.Path {
				t.Errorf("errors.As through a wrap lost the field: %v", fe)
			}
		})
	}
}
