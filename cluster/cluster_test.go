package cluster

import "testing"

func TestShapeValidate(t *testing.T) {
	tests := []struct {
		name  string
		shape Shape
		want  string // "" valid
	}{
		{"blue horizon", Shape{Hosts: 144, CPU: 100, Memory: 1024}, ""},
		{"no hosts", Shape{Hosts: 0, CPU: 100, Memory: 1024}, "hosts: need at least 1, got 0"},
		{"no cpu", Shape{Hosts: 1, CPU: 0, Memory: 1024}, "host cpu: must be positive, got 0"},
		{"no memory", Shape{Hosts: 1, CPU: 50, Memory: -1}, "host memory: must be positive, got -1 MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.shape.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate() = %q, want %q", got, tt.want)
			}
		})
	}
}
