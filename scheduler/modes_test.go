package scheduler

import "testing"

// TestParseModes: an enumerated setting is parsed by its Parse function
// (the configuration loader decodes the file and --set with them), so a
// bad value is refused naming the values allowed, and Validate refuses it
// in a Config built in code, naming the key; a good one arrives as its
// typed constant.
func TestParseModes(t *testing.T) {
	parse := map[string]func(string, *Config) error{
		"backfilling": func(v string, c *Config) (err error) { c.Backfilling, err = ParseBackfilling(v); return },
		"suspension":  func(v string, c *Config) (err error) { c.Suspension, err = ParseSuspension(v); return },
		"suspendresume_exclusion": func(v string, c *Config) (err error) {
			c.Exclusion, err = ParseExclusion(v)
			return
		},
		"migration": func(v string, c *Config) (err error) { c.Migration, err = ParseMigration(v); return },
	}
	raw := map[string]func(string, *Config){
		"backfilling":             func(v string, c *Config) { c.Backfilling = Backfilling(v) },
		"suspension":              func(v string, c *Config) { c.Suspension = Suspension(v) },
		"suspendresume_exclusion": func(v string, c *Config) { c.Exclusion = Exclusion(v) },
		"migration":               func(v string, c *Config) { c.Migration = Migration(v) },
	}
	cases := []struct {
		key, value string
		want       string // the error, or "" when accepted
		check      func(Config) bool
	}{
		{"backfilling", "aggressive", "", func(c Config) bool { return c.Backfilling == BackfillAggressive }},
		{"backfilling", "sideways", `backfilling: unknown value "sideways" (want conservative, aggressive, none)`, nil},
		{"suspension", "serial", "", func(c Config) bool { return c.Suspension == SuspensionSerial }},
		{"suspension", "sometimes", `suspension: unknown value "sometimes" (want none, serial, all)`, nil},
		{"suspendresume_exclusion", "global", "", func(c Config) bool { return c.Exclusion == ExclusionGlobal }},
		{"suspendresume_exclusion", "Global", `suspendresume_exclusion: unknown value "Global" (want local, global)`, nil},
		{"migration", "yes-notransfer", "", func(c Config) bool { return c.Migration == MigrationNoTransfer }},
		{"migration", "maybe", `migration: unknown value "maybe" (want no, yes, yes-notransfer)`, nil},
	}
	for _, c := range cases {
		t.Run(c.key+"="+c.value, func(t *testing.T) {
			cfg := DefaultConfig()
			err := parse[c.key](c.value, &cfg)
			switch {
			case c.want != "" && (err == nil || c.key+": "+err.Error() != c.want):
				t.Fatalf("got %v, want %s", err, c.want)
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "" && !c.check(cfg):
				t.Fatalf("%s=%s set %+v", c.key, c.value, cfg)
			}
			cfg = DefaultConfig()
			raw[c.key](c.value, &cfg)
			err = cfg.Validate()
			switch {
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Fatalf("Validate: got %v, want %s", err, c.want)
			case c.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			}
		})
	}
}

// TestValidateModes: a Config built in code with a value Set would refuse
// is refused by Validate, naming the field.
func TestValidateModes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Exclusion = "nearby"
	want := `suspendresume_exclusion: unknown value "nearby" (want local, global)`
	if err := cfg.Validate(); err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
