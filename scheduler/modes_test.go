package scheduler

import "testing"

// TestSetParsesModes: an enumerated setting is parsed when it is set, so a
// bad value is refused there (naming the key and the values allowed) and
// a good one arrives as its typed constant.
func TestSetParsesModes(t *testing.T) {
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
			err := cfg.Set(c.key, c.value)
			switch {
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Fatalf("got %v, want %s", err, c.want)
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "" && !c.check(cfg):
				t.Fatalf("%s=%s set %+v", c.key, c.value, cfg)
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
