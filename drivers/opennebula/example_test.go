package opennebula

import (
	"bytes"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestExampleConfig reads the driver.opennebula section of
// examples/opennebula.yaml strictly (unknown keys are errors) over the
// defaults, as the daemon's loader does, and validates it.
func TestExampleConfig(t *testing.T) {
	raw, err := os.ReadFile("../../examples/opennebula.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Driver struct {
			Name       string    `yaml:"name"`
			OpenNebula yaml.Node `yaml:"opennebula"`
		} `yaml:"driver"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Driver.Name != "opennebula" {
		t.Errorf("driver.name = %q", doc.Driver.Name)
	}
	section, err := yaml.Marshal(&doc.Driver.OpenNebula)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	dec := yaml.NewDecoder(bytes.NewReader(section))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("driver.opennebula: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.AuthFile != "/etc/bora/one_auth" || cfg.PollInterval.String() != "5s" || cfg.Datastore != -1 ||
		cfg.Migration != MigrationLive {
		t.Errorf("decoded %v", cfg)
	}
}
