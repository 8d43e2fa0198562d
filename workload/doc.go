// Package workload reads lease workloads (traces) into scheduler.Request
// values: the Standard Workload Format of the Parallel Workloads Archive
// (ReadSWF), Haizea's Lease Workload Format in XML (ReadLWFXML) and in its
// older one-lease-a-line form (ReadLWFLines), and bora's own JSON and YAML
// format (ReadJSON, ReadYAML). ReadFile picks the reader by file extension
// and sorts the leases by arrival.
//
// Every reader returns a *Trace whose requests all pass
// scheduler.Request.Validate. A line, element or field that cannot be read
// is a *ParseError naming the file, the line and the field (an SWF field
// number, an XML element path such as
// "lease-workload/lease-requests/lease-request[3]/lease/duration@time", or
// a JSON/YAML path such as "leases[2].duration"); the readers never panic.
//
// # Units and times
//
// CPU is hundredths of a core (100 = one core, Haizea's unit) and memory is
// MB, both per VM. All times are offsets from the simulation start. Time
// fields accept, depending on the format, seconds ("3600", "1.5"),
// clock times "[DD:]HH:MM:SS[.ff]" with an optional leading "+", Go
// durations ("2h30m", bora's format only) and absolute date-times
// "YYYY-MM-DD HH:MM:SS" (or RFC 3339 in bora's format), which are taken
// relative to Options.Epoch. Times beyond 100 years, more than 2^20 VMs,
// more than 2^20 cores or 2^40 MB per VM are rejected as out of range, so
// that sums of times and capacities never overflow downstream.
//
// # Origin and preemption class
//
// SWF and LWF carry no origin and no class; Options holds the defaults of
// docs/formats.md §4: advance-reservation and immediate leases are local and
// non-preemptable, best-effort leases are external and Options.DefaultClass
// (suspendable unless changed; cancellable when Options.SuspensionOff),
// deadline leases are external and migratable (non-preemptable when
// suspension is off, since migrating needs suspension). An LWF lease marked
// preemptible="true" is external and preemptable; preemptible="false" is
// non-preemptable. Options.ForceOrigin = scheduler.Local (the --inject
// files) makes every lease local and non-preemptable, whatever the file
// says.
package workload
