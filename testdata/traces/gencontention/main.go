// Command gencontention writes testdata/traces/contention-32.yaml, a
// contention workload for 32 single-core hosts: two weeks of external
// best-effort leases of the four classes and immediate local leases
// (docs/models.md §5, "Immediate local leases and switched-off hosts").
// It is deterministic (a fixed seed):
//
//	go run ./testdata/traces/gencontention > testdata/traces/contention-32.yaml
package main

import (
	"fmt"
	"math/rand"
)

func main() {
	rng := rand.New(rand.NewSource(13))
	const span = 14 * 86400
	classes := []string{"cancellable", "suspendable", "migratable", "non-preemptable"}
	fmt.Println("# Contention workload for 32 single-core hosts of 1024 MB (gencontention).")
	fmt.Println("# External best-effort leases of the four classes, one every 30 min on")
	fmt.Println("# average, 1-11 VMs for 30 min to 3.5 h; immediate local leases, one every")
	fmt.Println("# 2 h on average, 2-12 VMs for 30 min to 2 h (0 notice).")
	fmt.Println("leases:")
	type ev struct {
		at   int
		line string
	}
	var evs []ev
	n := 0
	for t := 0; ; {
		t += int(rng.ExpFloat64() * 1800)
		if t >= span {
			break
		}
		n++
		vms := 1 + rng.Intn(11)
		d := 1800 + 900*rng.Intn(13)
		real := d/2 + rng.Intn(d/2+1)
		evs = append(evs, ev{t, fmt.Sprintf("  - {name: x%d, arrival: %d, start: best-effort, duration: %d, real_duration: %d, vms: %d, origin: external, class: %s}",
			n, t, d, real, vms, classes[n%4])})
	}
	n = 0
	for t := 0; ; {
		t += int(rng.ExpFloat64() * 7200)
		if t >= span {
			break
		}
		n++
		vms := 2 + rng.Intn(11)
		d := 1800 + 900*rng.Intn(7)
		evs = append(evs, ev{t, fmt.Sprintf("  - {name: l%d, arrival: %d, start: now, duration: %d, vms: %d, origin: local}", n, t, d, vms)})
	}
	// Sorted by arrival (stable: externals first at a tie).
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].at < evs[j-1].at; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	for _, e := range evs {
		fmt.Println(e.line)
	}
}
