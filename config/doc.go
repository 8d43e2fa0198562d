// Package config reads bora's configuration file: one YAML document whose
// sections (scheduler, cluster, workload, energy, and borad's daemon,
// api, driver, hosts, power, jobs, emulation) are mappings of keys.
//
//	scheduler:                 # scheduler.Config, by its yaml tags
//	  backfilling: aggressive  # conservative | aggressive | none
//	  max_reservations: 4
//	  mapper: pack             # pack | spread
//	  preemption:
//	    policy: MLIP           # NOP | MOV | MLIP | MOML
//	    exact_limit: 16
//	  overheads:
//	    suspend_rate: 40       # MB/s
//	    shutdown: 10s          # Go duration or seconds
//	cluster:                   # the simulated cluster (bora simulate)
//	  hosts: 512
//	  cpu: 1                   # cores per host (0.5 allowed)
//	  memory: 1024             # MB per host
//	workload:                  # how traces become leases
//	  cpu_per_vm: 1
//	  memory_per_vm: 1024
//	  suspension_off: false
//
// Default returns the configuration with nothing set: scheduler.
// DefaultConfig, 144 hosts of one core and 1024 MB (the SDSC Blue Horizon
// experiments) and workload.DefaultOptions. Load (a file) and Parse (bytes)
// start from Default and decode the document onto the sections by their
// yaml tags (fields.go); Config.Set, which `bora simulate --set key=value`
// uses, turns one dotted key ("scheduler.overheads.suspend_rate") into
// the same YAML tree and decodes it the same way, so a key means and
// refuses the same in both. Then Validate runs over every section.
//
// Reading is strict (package yamlstrict): an unknown key, a key written twice in the same
// mapping (ErrDuplicateKey), a list or a mapping where a single value
// belongs, or a value that does not parse (the scheduler's modes parse
// with scheduler.ParseBackfilling and its kin, so an unknown backfilling
// mode is one) is an *Error naming the file, the line and the dotted key
// (an unknown key wraps ErrUnknownKey). Values that parse but are out of
// range (a negative rate, zero hosts) are found by Validate after the whole
// document is read, as a *fielderr.Error naming the key; the loader keeps
// the line of every key path while reading and turns it into an *Error
// with that line (for a key left out, the line of the key that made it
// needed, or of its section). On any error Load and Parse return the zero
// Config: nothing of a bad file is used.
//
// CPU values are written in cores and stored in hundredths of a core
// (Haizea's unit); memory is in MB.
package config
