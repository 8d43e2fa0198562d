package energy

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkMeter changes one host's load per operation, for several
// cluster sizes (the cost should not grow with the hosts).
func BenchmarkMeter(b *testing.B) {
	for _, n := range []int{16, 512, 4096} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			hosts := make([]string, n)
			for i := range hosts {
				hosts[i] = fmt.Sprintf("h%d", i)
			}
			m, err := NewMeter(PowerModel{IdleWatts: 100, BusyWatts: 200}, hosts, t0, On)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := m.SetLoad(t0.Add(time.Duration(i)*time.Second), hosts[i%n], float64(i%5)/4); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecide(b *testing.B) {
	in := Input{Now: now, Need: 4, Local: true, V: 0.4, C: 0.6, On: 100, Off: 20, Idle: idle}
	for _, name := range PolicyNames() {
		p, _ := NewPolicy(name, DefaultParams())
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Decide(in)
			}
		})
	}
}

// TestMeterConcurrent runs changes from several goroutines at one instant
// (run with -race).
func TestMeterConcurrent(t *testing.T) {
	end := at(time.Hour)
	hosts := []string{"a", "b", "c", "d"}
	m := newMeter(t, PowerModel{IdleWatts: 100, BusyWatts: 200}, hosts, On, &end)
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i <= 100; i++ {
				if err := m.SetLoad(t0, h, float64(i)/100); err != nil {
					t.Error(err)
				}
				m.Energy(t0)
				m.Counts()
			}
		}()
	}
	wg.Wait()
	// Each host ends at load 1: 4 * 200 W for 1 h = .8 kWh.
	if total, _ := m.Energy(end); !near(total, 0.8) {
		t.Errorf("Energy = %g, want 0.8", total)
	}
}
