package workgen

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

const sdsc = "../testdata/traces/sdsc-blue-30days.swf"

// localCPUh sums the CPU hours of the local and the external requests.
func localCPUh(reqs []scheduler.Request) (local, external float64, n int) {
	for _, r := range reqs {
		h := float64(r.VMs) * r.RealDuration().Hours()
		if r.Origin == scheduler.Local {
			local += h
			n++
		} else {
			external += h
		}
	}
	return local, external, n
}

// The local share of CPU hours comes out at rho. The sum of n local
// requests of VMs x D CPU hours (VMs uniform 25-48, D uniform 2.5-3.5 h)
// has the standard deviation sqrt(n Var(VMs x D)); rounding n to a whole
// number moves the share by at most half a request. The tolerance is 3
// standard deviations plus one mean request.
func TestLocalGridRho(t *testing.T) {
	for _, c := range []struct {
		rho, base string
		want      float64
	}{
		{"0.05", "workload", 0.05}, {"0.15", "workload", 0.15}, {"0.30", "workload", 0.30},
		{"0.15", "capacity", 0.15}, {"0.30", "capacity", 0.30},
	} {
		w, err := Generate("local-grid", 9, map[string]string{"trace": sdsc, "rho": c.rho, "rho_base": c.base})
		if err != nil {
			t.Fatal(err)
		}
		l, e, n := localCPUh(w.Requests)
		// E[VMs] = 36.5, E[VMs^2] = (25^2+...+48^2)/24 = 33124/24 = 1380.17;
		// E[D] = 3, E[D^2] = 9 + 1/12.
		meanReq := 36.5 * 3
		sd := math.Sqrt(float64(n) * (1380.1667*(9+1.0/12) - meanReq*meanReq))
		base := l + e
		if c.base == "capacity" {
			base = 144 * 720
		}
		share := l / base
		tol := (3*sd + meanReq) / base
		t.Logf("rho %s of %s: %d local requests, %.0f of %.0f CPU hours: %.4f (± %.4f)", c.rho, c.base, n, l, base, share, tol)
		if math.Abs(share-c.want) > tol {
			t.Errorf("rho %s of %s: local share %.4f, want %.4f ± %.4f", c.rho, c.base, share, c.want, tol)
		}
	}
}

// The default notice books 24 h ahead (advance reservations), except the
// first day's, which arrive at 0; notice 0 makes immediate leases.
func TestLocalGridNotice(t *testing.T) {
	w, err := Generate("local-grid", 1, map[string]string{"trace": sdsc})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range w.Requests {
		if r.Origin != scheduler.Local {
			continue
		}
		want := 24 * time.Hour
		if r.Start < want {
			want = r.Start
		}
		if r.Kind != scheduler.AdvanceReservation || r.Start-r.Arrival != want || r.Class != scheduler.NonPreemptable {
			t.Errorf("local %s: %s %s, notice %s; want an advance reservation %s ahead", r.Name, r.Kind, r.Class, r.Start-r.Arrival, want)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("local %s: %v", r.Name, err)
		}
	}
	w, _ = Generate("local-grid", 1, map[string]string{"trace": sdsc, "notice": "0"})
	for _, r := range w.Requests {
		if r.Origin == scheduler.Local && r.Kind != scheduler.Immediate {
			t.Errorf("local %s: %s, want immediate", r.Name, r.Kind)
		}
	}
	if w.Hosts != 144 || w.HostCPU != 100 || w.HostMemory != 1024 {
		t.Errorf("cluster %d x %d/%d, want 144 x 100/1024", w.Hosts, w.HostCPU, w.HostMemory)
	}
}

// The draws of one local request, 100k times: size uniform on 25-48,
// duration uniform in 3 h ± 30 min, inter-arrival uniform in lambda ± 1 h.
func TestLocalGridMoments(t *testing.T) {
	v := values{}
	for _, p := range models["local-grid"].params {
		v[p.Name] = p.Default
	}
	v["trace"] = sdsc
	s, err := readLocalGrid(v)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand("test", 4)
	sizes, durs, gaps := make([]float64, draws), make([]float64, draws), make([]float64, draws)
	for i := range draws {
		n, d, g := s.draw(r)
		sizes[i], durs[i], gaps[i] = float64(n), d.Seconds(), g.Seconds()
	}
	// discrete uniform 25..48: the pmf 1/24 each.
	p := map[int]float64{}
	for n := 25; n <= 48; n++ {
		p[n] = 1.0 / 24
	}
	checkMoments(t, "size", sizes, pmfRaw(p))
	checkMoments(t, "duration", durs, uniformRaw(3*3600-1800, 3*3600+1800))
	l := s.lambda.Seconds()
	checkMoments(t, "inter-arrival", gaps, uniformRaw(l-3600, l+3600))
}

// uniformRaw are the raw moments of U[a, b]: (b^(k+1) - a^(k+1)) / ((k+1)(b-a)).
func uniformRaw(a, b float64) raw {
	var m raw
	for k := 1; k <= 4; k++ {
		m[k] = (math.Pow(b, float64(k+1)) - math.Pow(a, float64(k+1))) / (float64(k+1) * (b - a))
	}
	return m
}

func TestLocalGridBadParams(t *testing.T) {
	cases := []struct {
		params map[string]string
		name   string
	}{
		{map[string]string{"rho": "1.5"}, "rho"},
		{map[string]string{"theta": "huge"}, "theta"},
		{map[string]string{"delta": "20m"}, "delta"},
		{map[string]string{"rho_base": "hosts"}, "rho_base"},
		{map[string]string{"notice": "-1h"}, "notice"},
		{map[string]string{"trace": "no/such/file.swf"}, "trace"},
	}
	for _, c := range cases {
		if c.params["trace"] == "" {
			c.params["trace"] = sdsc
		}
		_, err := Generate("local-grid", 1, c.params)
		if !errors.Is(err, ErrBadParam) || !containsWord(err, c.name+"=") {
			t.Errorf("%v: error %v, want ErrBadParam naming %s", c.params, err, c.name)
		}
	}
}
