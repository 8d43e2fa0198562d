package dispatch

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bora-sched/bora/fielderr"
)

// cl is a cluster with cv_e = 0.5 and cv_l = 0.1 moments: external mean
// theta, local rate lambda and mean tau.
func cl(name string, theta, lambda, tau float64) Cluster {
	return Cluster{Name: name, Hosts: 1, Power: 1, Theta: theta, Omega: 1.25 * theta * theta,
		Lambda: lambda, Tau: tau, Mu: 1.01 * tau * tau}
}

// golden minimises the convex f over [lo, hi].
func golden(f func(float64) float64, lo, hi float64) (float64, float64) {
	g := (math.Sqrt(5) - 1) / 2
	a, b := lo, hi
	for i := 0; i < 200 && b-a > 1e-13*(1+math.Abs(b)); i++ {
		c, d := b-g*(b-a), a+g*(b-a)
		if f(c) <= f(d) {
			b = d
		} else {
			a = c
		}
	}
	x := (a + b) / 2
	return x, f(x)
}

// bruteMin minimises T directly: nested golden sections over the
// simplex sum Lambda_j = rate (T is convex in the split).
func bruteMin(cs []Cluster, rate float64) ([]float64, float64) {
	split := make([]float64, len(cs))
	var inner func(j int, left float64) float64
	inner = func(j int, left float64) float64 {
		if j == len(cs)-1 {
			split[j] = left
			return penalised(cs, split)
		}
		x, _ := golden(func(x float64) float64 {
			split[j] = x
			return inner(j+1, left-x)
		}, 0, left)
		split[j] = x
		return inner(j+1, left-x)
	}
	t := inner(0, rate)
	return split, t
}

// penalised is T, or beyond capacity a large value growing with the
// excess, so that the golden sections stay on a convex function.
func penalised(cs []Cluster, split []float64) float64 {
	over := 0.0
	for j, c := range cs {
		over += max(0, split[j]-(1-c.Rho())/c.Theta*(1-1e-9))
	}
	if over > 0 {
		return 1e12 * (1 + over)
	}
	return ResponseTime(cs, split)
}

func TestPAPMatchesDirectMinimum(t *testing.T) {
	for _, c := range []struct {
		name string
		cs   []Cluster
		rate float64
	}{
		// rho 0.3 and 0.6; both take load.
		{"two loaded", []Cluster{cl("a", 1, 0.3, 1), cl("b", 0.5, 1.2, 0.5)}, 0.8},
		{"two, heavy", []Cluster{cl("a", 1, 0.3, 1), cl("b", 0.5, 1.2, 0.5)}, 1.3},
		{"three", []Cluster{cl("a", 1, 0.3, 1), cl("b", 0.5, 1.2, 0.5), cl("c", 0.8, 0.5, 1)}, 1.2},
		{"three, one idle", []Cluster{cl("a", 2, 0, 1), cl("b", 0.5, 1.2, 0.5), cl("c", 0.8, 0.5, 1)}, 0.9},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := PAP(c.cs, c.rate)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0.0
			for _, v := range got {
				sum += v
			}
			if math.Abs(sum-c.rate) > 1e-12 {
				t.Errorf("split %v sums to %v, want %v", got, sum, c.rate)
			}
			want, tmin := bruteMin(c.cs, c.rate)
			tpap := ResponseTime(c.cs, got)
			if tpap > tmin*(1+1e-9) {
				t.Errorf("T(PAP %v) = %.12f above the direct minimum %.12f at %v", got, tpap, tmin, want)
			}
			for j := range got {
				if math.Abs(got[j]-want[j]) > 1e-4*c.rate {
					t.Errorf("cluster %d: Lambda %v, direct minimum at %v", j, got[j], want[j])
				}
			}
		})
	}
}

// The source's eq. 4.7 (omega_j without (1 - rho_j)) misses the minimum
// of T when a cluster has local load (docs/models.md §6, departure).
func TestPAPSourcePhiMissesMinimum(t *testing.T) {
	cs := []Cluster{cl("a", 1, 0.3, 1), cl("b", 0.5, 1.2, 0.5)}
	rate := 0.8
	src, err := papWith(cs, rate, phiSource)
	if err != nil {
		t.Fatal(err)
	}
	_, tmin := bruteMin(cs, rate)
	if ts := ResponseTime(cs, src); ts < tmin*(1+1e-4) {
		t.Errorf("source's phi: T = %v, not above the minimum %v", ts, tmin)
	}
	// Its lower bound is off: phi_j(psi_j) should be (1 - rho_j)/theta_j
	// (no load at the threshold); b: rho 0.6, theta 0.5 -> 0.8.
	b := cs[1]
	if got := phi(b, psi(b)); math.Abs(got-0.8) > 1e-12 {
		t.Errorf("phi(psi) = %v, want 0.8", got)
	}
	if got := phiSource(b, psi(b)); math.Abs(got-0.8) < 1e-3 {
		t.Errorf("source's phi(psi) = %v, want it off 0.8", got)
	}
}

func TestPAPSmallRateUsesSmallestPsi(t *testing.T) {
	// psi = theta/(1-rho) + lambda*mu/(2(1-rho)^2): a 1/0.7 + 0.303/0.98
	// = 1.7377; b 0.5/0.4 + 0.303/0.32 = 2.1969; c (idle, theta 0.4) 0.4.
	// c alone carries up to Lambda_c(psi_a) = 2.5 - phi_c(1.7377) =
	// 2.5 - sqrt(0.2/1.2702)/0.4 = 1.508; c and a up to Lambda_c(psi_b) +
	// Lambda_a(psi_b) = 1.626 + 0.105 = 1.73. So rate 1 goes to c alone,
	// rate 1.6 to c and a (c more), rate 2 to all three.
	cs := []Cluster{cl("a", 1, 0.3, 1), cl("b", 0.5, 1.2, 0.5), cl("c", 0.4, 0, 1)}
	for _, c := range []struct {
		rate   float64
		loaded [3]bool
	}{{1, [3]bool{false, false, true}}, {1.5, [3]bool{false, false, true}}, {1.52, [3]bool{true, false, true}}, {1.6, [3]bool{true, false, true}}, {1.72, [3]bool{true, false, true}}, {1.74, [3]bool{true, true, true}}, {2, [3]bool{true, true, true}}} {
		got, err := PAP(cs, c.rate)
		if err != nil {
			t.Fatal(err)
		}
		for j := range got {
			if (got[j] > 0) != c.loaded[j] {
				t.Errorf("rate %v: %v, want loaded %v", c.rate, got, c.loaded)
				break
			}
		}
		if c.rate == 1 && math.Abs(got[2]-1) > 1e-12 {
			t.Errorf("rate 1: %v, want all on c", got)
		}
	}
	if got, err := PAP(cs, 0); err != nil || got[0]+got[1]+got[2] != 0 {
		t.Errorf("rate 0: %v %v, want zeros", got, err)
	}
}

func TestPAPSaturatedAndOverload(t *testing.T) {
	sat := cl("s", 1, 1, 1.5) // rho 1.5: no external load
	cs := []Cluster{sat, cl("a", 1, 0.3, 1)}
	got, err := PAP(cs, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 0 || math.Abs(got[1]-0.5) > 1e-12 {
		t.Errorf("%v, want all on a", got)
	}
	// a's capacity is (1 - 0.3)/1 = 0.7.
	if _, err := PAP(cs, 0.7); !errors.Is(err, ErrOverload) {
		t.Errorf("rate 0.7: %v, want ErrOverload", err)
	}
	if _, err := PAP([]Cluster{sat}, 0.1); !errors.Is(err, ErrOverload) {
		t.Errorf("only saturated: %v, want ErrOverload", err)
	}
}

func TestPAPBadInput(t *testing.T) {
	good := cl("a", 1, 0.3, 1)
	for _, c := range []struct {
		name string
		cs   []Cluster
		rate float64
		path string
	}{
		{"negative rate", []Cluster{good}, -1, "rate"},
		{"NaN rate", []Cluster{good}, math.NaN(), "rate"},
		{"no name", []Cluster{{Hosts: 1, Power: 1, Theta: 1, Omega: 1}}, 0.1, "clusters[0].name"},
		{"zero theta", []Cluster{good, {Name: "b", Hosts: 1, Power: 1}}, 0.1, "clusters[1].theta"},
		{"omega below theta^2", []Cluster{{Name: "b", Hosts: 1, Power: 1, Theta: 1, Omega: 0.5}}, 0.1, "clusters[0].omega"},
		{"duplicate", []Cluster{good, good}, 0.1, "clusters[1].name"},
		{"no hosts", []Cluster{{Name: "b", Power: 1, Theta: 1, Omega: 1}}, 0.1, "clusters[0].hosts"},
		{"negative cost", []Cluster{{Name: "b", Hosts: 1, Power: 1, Theta: 1, Omega: 1, Cost: -1}}, 0.1, "clusters[0].cost"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := PAP(c.cs, c.rate)
			var fe *fielderr.Error
			if !errors.Is(err, ErrInput) || !errors.As(err, &fe) || fe.Path != c.path {
				t.Errorf("%v, want ErrInput at %s", err, c.path)
			}
		})
	}
	if _, err := PAP(nil, 1); !errors.Is(err, ErrClusters) {
		t.Errorf("no cluster: %v", err)
	}
}

func TestNewCluster(t *testing.T) {
	// Two hosts of speeds 1 and 3: M 2, sum 4. External 2 VMs for 8 h:
	// theta = 2*8/(2*4) = 2; omega = (0.5*2)^2 + 4 = 5. Local 1 VM for
	// 4 h: tau = 4/8 = 0.5, mu = (0.1*0.5)^2 + 0.25 = 0.2525.
	c, err := NewCluster(Spec{Name: "x", Speeds: []float64{1, 3}, LocalRate: 1, ExtVMs: 2, ExtDuration: 8, LocalVMs: 1, LocalDuration: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := Cluster{Name: "x", Hosts: 2, Power: 4, Theta: 2, Omega: 5, Lambda: 1, Tau: 0.5, Mu: 0.2525}
	if math.Abs(c.Mu-want.Mu) > 1e-15 {
		t.Errorf("mu %v, want %v", c.Mu, want.Mu)
	}
	c.Mu = want.Mu
	if c != want {
		t.Errorf("%+v, want %+v", c, want)
	}
	for _, s := range []struct {
		spec Spec
		path string
	}{
		{Spec{Name: "x", ExtVMs: 1, ExtDuration: 1}, "speeds"},
		{Spec{Name: "x", Speeds: []float64{1, 0}, ExtVMs: 1, ExtDuration: 1}, "speeds[1]"},
		{Spec{Name: "x", Speeds: []float64{1}, ExtDuration: 1}, "ext_vms"},
		{Spec{Name: "x", Speeds: []float64{1}, ExtVMs: 1, ExtDuration: 1, LocalRate: 1}, "local_vms"},
		{Spec{Name: "x", Speeds: []float64{1}, ExtVMs: 1, ExtDuration: 1, CVExt: -1}, "cv_ext"},
		{Spec{Speeds: []float64{1}, ExtVMs: 1, ExtDuration: 1}, "name"},
	} {
		_, err := NewCluster(s.spec)
		var fe *fielderr.Error
		if !errors.As(err, &fe) || fe.Path != s.path || !errors.Is(err, ErrInput) {
			t.Errorf("%+v: %v, want ErrInput at %s", s.spec, err, s.path)
		}
	}
}

func BenchmarkPAP(b *testing.B) {
	for _, n := range []int{3, 100} {
		cs := make([]Cluster, n)
		capacity := 0.0
		for j := range cs {
			theta := 0.5 + float64(j%7)*0.1
			cs[j] = cl(fmt.Sprintf("c%d", j), theta, 0.2+float64(j%5)*0.1, 1)
			capacity += (1 - cs[j].Rho()) / theta
		}
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := PAP(cs, 0.7*capacity); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPAPRandomOperatingPoints: on 20 random operating points (2 or 3
// clusters, external means 0.2-2, local loads rho 0-0.8, the external
// rate 10-90 % of what the clusters have left), PAP's split is the
// direct minimiser of T within 0.5 % of the rate, cluster by cluster.
func TestPAPRandomOperatingPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 6))
	for i := range 20 {
		n := 2 + i%2
		cs := make([]Cluster, n)
		room := 0.0
		for j := range cs {
			theta, tau := 0.2+1.8*rng.Float64(), 0.2+1.8*rng.Float64()
			rho := 0.8 * rng.Float64()
			cs[j] = cl(fmt.Sprintf("c%d", j), theta, rho/tau, tau)
			room += (1 - cs[j].Rho()) / theta
		}
		rate := room * (0.1 + 0.8*rng.Float64())
		got, err := PAP(cs, rate)
		if err != nil {
			t.Fatalf("point %d: %v", i, err)
		}
		want, tmin := bruteMin(cs, rate)
		for j := range got {
			if math.Abs(got[j]-want[j]) > 0.005*rate {
				t.Errorf("point %d (rate %.4f): cluster %d gets %.6f, the direct minimiser %.6f", i, rate, j, got[j], want[j])
			}
		}
		if tpap := ResponseTime(cs, got); tpap > tmin*(1+0.005) {
			t.Errorf("point %d: T(PAP) %.9f, direct minimum %.9f", i, tpap, tmin)
		}
	}
}
