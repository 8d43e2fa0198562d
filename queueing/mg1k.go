package queueing

import (
	"math"

	"github.com/bora-sched/bora/fielderr"
)

// MaxK is the largest K a Queue or KStar accepts: the stationary law
// costs O(K²), and no cluster admits more external leases than this.
const MaxK = 1 << 14

// Queue is an M/G/1/K queue: Poisson arrivals at Rate, one server in
// first-come first-served order, service law Service, and room for K jobs
// in all (the one in service included); an arrival that finds K jobs is
// refused.
type Queue struct {
	Rate    float64
	Service Service
}

// ResponseTimes returns E(R_K), the mean response time (waiting plus
// service) of admitted jobs, for K = 1..maxK: element K-1 is E(R_K). See
// docs/models.md §4 for the method. It returns an ErrInvalid error naming
// "rate", "service.mean", "service.cv" or "max_k" for a bad input.
func (q Queue) ResponseTimes(maxK int) ([]float64, error) {
	s, err := newSolver(q, maxK)
	if err != nil {
		return nil, err
	}
	out := make([]float64, maxK)
	for i := range out {
		out[i] = s.next()
	}
	return out, nil
}

// ResponseTime returns E(R_K) for one K; errors as ResponseTimes.
func (q Queue) ResponseTime(k int) (float64, error) {
	r, err := q.ResponseTimes(k)
	if err != nil {
		return 0, err
	}
	return r[k-1], nil
}

// solver computes E(R_K) for K = 1, 2, ... in turn, extending the
// embedded chain's stationary vector by one state each time.
type solver struct {
	rate    float64
	mean    float64
	rho     float64 // rho_e = rate * mean
	arr     Arrivals
	maxK    int
	logA0   float64   // log a_0
	logTail []float64 // log P(N > m), m = 0..maxK-1
	logPi   []float64 // unnormalised log pi_k, pi_0 = 1
	logZ    float64   // log sum_{k<K} pi_k
	logZ1   float64   // log sum_{1<=k<K} pi_k
	logM    float64   // log sum_{k<K} k*pi_k
	terms   []float64 // scratch
}

func newSolver(q Queue, maxK int) (*solver, error) {
	if maxK < 1 || maxK > MaxK {
		return nil, fielderr.Wrap(ErrInvalid, "max_k", "must be between 1 and %d, got %d", MaxK, maxK)
	}
	a, err := NewArrivals(q.Rate, q.Service)
	if err != nil {
		return nil, err
	}
	s := &solver{
		rate:  q.Rate,
		mean:  q.Service.Mean,
		rho:   q.Rate * q.Service.Mean,
		logA0: a.LogProb(0),
		logPi: make([]float64, 0, maxK),
		logZ1: math.Inf(-1),
		logM:  math.Inf(-1),
		terms: make([]float64, 0, maxK),
	}
	s.arr, s.maxK = a, maxK
	if !a.none {
		s.logTail = a.LogTails(min(maxK, 64))
	}
	return s, nil
}

// next returns E(R_K) for the next K (1 on the first call).
func (s *solver) next() float64 {
	k := len(s.logPi)
	if s.logTail == nil { // no arrivals: nobody waits
		s.logPi = append(s.logPi, 0)
		return s.mean
	}
	if k == 0 {
		s.logPi = append(s.logPi, 0)
		s.logZ = 0
	} else {
		lp := s.nextLogPi(k - 1)
		s.logPi = append(s.logPi, lp)
		s.logZ = logAddExp(s.logZ, lp)
		s.logZ1 = logAddExp(s.logZ1, lp)
		s.logM = logAddExp(s.logM, math.Log(float64(k))+lp)
	}
	K := float64(k + 1)
	// E(R_K) * Lambda = sum_k k P_d,k + K (P_d,0 + rho_e - 1), and
	// P_d,0 + rho_e - 1 = rho_e - (1 - P_d,0) is 1/(1-p_K) - 1 >= 0; a
	// negative value is rounding only.
	block := s.rho - math.Exp(s.logZ1-s.logZ)
	if block < 0 {
		block = 0
	}
	return (math.Exp(s.logM-s.logZ) + K*block) / s.rate
}

// nextLogPi returns log pi_{j+1} by the level-crossing form of the
// recursion: a_0 pi_{j+1} = pi_0 P(N > j) + sum_{i=1..j} pi_i P(N > j+1-i).
func (s *solver) nextLogPi(j int) float64 {
	if j >= len(s.logTail) { // tails up to the cap cost O(cap): grow them as K does
		s.logTail = s.arr.LogTails(min(2*len(s.logTail), s.maxK))
	}
	t := s.terms[:0]
	t = append(t, s.logPi[0]+s.logTail[j])
	for i := 1; i <= j; i++ {
		t = append(t, s.logPi[i]+s.logTail[j+1-i])
	}
	s.terms = t
	return logSumExp(t) - s.logA0
}

// logSumExp returns log sum exp(x_i), -Inf for an empty or all -Inf x.
func logSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, -1) {
		return m
	}
	var sum float64
	for _, v := range x {
		sum += math.Exp(v - m)
	}
	return m + math.Log(sum)
}
