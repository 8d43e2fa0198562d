package energy

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/bora-sched/bora/fielderr"
)

// Policy decides how the switched-on capacity follows demand: for one
// request (or a tick) it says how many hosts to switch on, how many of the
// request's hosts may be obtained by preemption, how many hosts to empty
// and switch off, and which idle hosts to switch off. Decide is pure: the
// same Input gives the same Decision, and enacting it is the caller's job.
type Policy interface {
	Decide(in Input) Decision
}

// IdleHost is a switched-on host with nothing scheduled on it, and since
// when.
type IdleHost struct {
	Host  string
	Since time.Time
}

// Input is what a policy sees of the cluster when a request arrives (or a
// tick runs, with the head of the external queue as the request).
type Input struct {
	Now   time.Time
	Need  int  // n: hosts the request needs (0: no request)
	Local bool // the request is a local lease (external ones never preempt)
	V, C  float64
	// On, Off and Booting count the hosts in each power state (a host
	// shutting down counts in none).
	On, Off, Booting int
	// LocalNeedAtStart is the number of hosts local leases still require
	// at the request's start, the request included when it is local.
	LocalNeedAtStart int
	// Room, for an external request, is how many of its Need hosts it
	// could have already on the hosts on or booting (0 when unknown).
	// PEMP reads it: an external lease never preempts, so hosts switched
	// on for it are of use only if, with Room, they cover Need.
	Room int
	Idle []IdleHost
}

// Reason says which branch of its policy a Decision took.
type Reason string

// The reasons.
const (
	ReasonAlwaysOn       Reason = "always-on"          // energy management is off
	ReasonNoRequest      Reason = "no-request"         // nothing needs hosts (Need 0)
	ReasonSwitchOn       Reason = "switch-on"          // hosts switched on for the request
	ReasonNoHostOff      Reason = "no-host-off"        // hosts wanted but none is off: all by preemption
	ReasonPreemptOnly    Reason = "preempt-only"       // PEMP f = 1 (or n*(1-f) < 1e-9): nothing to switch on
	ReasonLocalCovered   Reason = "local-covered"      // GESP/SESP: on and booting hosts cover the local need
	ReasonFragments      Reason = "external-fragments" // GESP/SESP: an external request uses what is on
	ReasonConsolidate    Reason = "consolidate"        // PEMP f > 1: hosts emptied and switched off
	ReasonNoConsolidate  Reason = "nothing-to-consolidate"
	ReasonLocalNeedsHost Reason = "consolidation-blocked" // local leases need the hosts at the request's start
	ReasonExternalLack   Reason = "external-lack"         // PEMP: an external request gets what it lacks, all or nothing
)

// Decision is what a policy wants done.
type Decision struct {
	// SwitchOn is the number of hosts to switch on (never more than are
	// off).
	SwitchOn int
	// Consolidate is the number of further switched-on hosts to empty
	// (fewest leases first: see FewestLeases; their leases moved or
	// preempted per class) and switch off.
	Consolidate int
	// SwitchOff are idle hosts past the grace period to switch off now,
	// longest idle first. Never any when SwitchOn > 0.
	SwitchOff []string
	// F is PEMP's fuzzy output and Fired the rules behind it (0 and nil
	// for the other policies).
	F     float64
	Fired []Firing
	// Reason is the branch taken; Rule shows the numbers, for logs and
	// `bora lease show`.
	Reason Reason
	Rule   string
}

// Params are the parameters of the energy policies.
type Params struct {
	Alpha float64       // waiting factor alpha (for V and the violation threshold), > 0
	Grace time.Duration // how long a host stays idle before it is switched off, >= 0
	Fuzzy *System       // PEMP's controller; nil: DefaultSystem
}

// DefaultParams returns alpha 5 (docs/models.md §5), a grace period of 5
// minutes (the source leaves it open) and the default fuzzy system.
func DefaultParams() Params {
	return Params{Alpha: DefaultAlpha, Grace: 5 * time.Minute}
}

// Validate checks the parameters. It returns a *fielderr.Error wrapping
// ErrInvalidParams, or, for a fuzzy system that fails System.Validate,
// its *fielderr.Error (wrapping ErrInvalidFuzzy) with the field prefixed by
// "fuzzy.".
func (p Params) Validate() error {
	if !(p.Alpha > 0) || math.IsInf(p.Alpha, 0) {
		return fieldErr(ErrInvalidParams, "alpha", "must be positive and finite, got %g", p.Alpha)
	}
	if p.Grace < 0 {
		return fieldErr(ErrInvalidParams, "grace", "must not be negative, got %s", p.Grace)
	}
	if p.Fuzzy != nil {
		if err := p.Fuzzy.Validate(); err != nil {
			var fe *fielderr.Error
			if errors.As(err, &fe) {
				return &fielderr.Error{Path: "fuzzy." + fe.Path, Msg: fe.Msg, Err: fe.Err}
			}
			return err
		}
	}
	return nil
}

// Policies is the registry of energy policies, by configuration name.
// Each constructor validates its Params.
var Policies = map[string]func(Params) (Policy, error){
	"always-on": func(p Params) (Policy, error) { return NewAlwaysOn(p) },
	"gesp":      func(p Params) (Policy, error) { return NewGESP(p) },
	"sesp":      func(p Params) (Policy, error) { return NewSESP(p) },
	"pemp":      func(p Params) (Policy, error) { return NewPEMP(p) },
}

// PolicyNames lists the registered policies, sorted.
func PolicyNames() []string {
	names := make([]string, 0, len(Policies))
	for n := range Policies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewPolicy builds the policy registered as name (case-insensitive). It
// returns an error wrapping ErrUnknownPolicy, or Params.Validate's.
func NewPolicy(name string, p Params) (Policy, error) {
	mk, ok := Policies[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPolicy, name, strings.Join(PolicyNames(), ", "))
	}
	return mk(p)
}

// AlwaysOn is no energy management: every host stays on, nothing is
// switched on or off; a local request takes what it lacks by preemption.
type AlwaysOn struct{}

// NewAlwaysOn returns the always-on policy once p is valid.
func NewAlwaysOn(p Params) (*AlwaysOn, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &AlwaysOn{}, nil
}

// Decide switches nothing.
func (AlwaysOn) Decide(Input) Decision {
	return Decision{Reason: ReasonAlwaysOn, Rule: "always-on: no energy management"}
}

// GESP (greedy) switches on only what local leases need; external leases
// use the fragments left on the hosts that are on, and never switch a host
// on. For a local request,
//
//	SwitchOn = min(Off, max(0, LocalNeedAtStart - On - Booting));
//
// for an external one it is 0. When nothing is switched on, idle hosts
// past the grace period are switched off (see idleOff).
type GESP struct{ grace time.Duration }

// NewGESP returns the GESP policy once p is valid.
func NewGESP(p Params) (*GESP, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &GESP{grace: p.Grace}, nil
}

// Decide applies GESP.
func (g *GESP) Decide(in Input) Decision {
	d := localNeed("gesp", in)
	if d.SwitchOn == 0 {
		d.SwitchOff = idleOff(in, g.grace)
	}
	return d
}

// localNeed is GESP's decision.
func localNeed(name string, in Input) Decision {
	if !in.Local {
		return Decision{Reason: ReasonFragments, Rule: name + ": external request: no host switched on"}
	}
	lack := in.LocalNeedAtStart - in.On - in.Booting
	d := Decision{SwitchOn: clamp(lack, 0, in.Off)}
	switch {
	case lack <= 0:
		d.Reason = ReasonLocalCovered
	case d.SwitchOn == 0:
		d.Reason = ReasonNoHostOff
	default:
		d.Reason = ReasonSwitchOn
	}
	d.Rule = fmt.Sprintf("%s: local need %d - on %d - booting %d = %d: switch on %d (%d off)",
		name, in.LocalNeedAtStart, in.On, in.Booting, lack, d.SwitchOn, in.Off)
	return d
}

// SESP (safe) is GESP, and whenever the violation risk V >= 1 it also
// switches on the hosts the request needs, local or external:
//
//	SwitchOn = min(Off, max(GESP's SwitchOn, Need))   if V >= 1,
//	SwitchOn = GESP's SwitchOn                        otherwise;
//
// a local request takes the rest by preemption.
type SESP struct{ grace time.Duration }

// NewSESP returns the SESP policy once p is valid.
func NewSESP(p Params) (*SESP, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &SESP{grace: p.Grace}, nil
}

// Decide applies SESP.
func (s *SESP) Decide(in Input) Decision {
	d := localNeed("sesp", in)
	n := max(0, in.Need)
	if in.V >= 1 && n > d.SwitchOn {
		d.SwitchOn = min(n, max(0, in.Off))
		d.Reason = ReasonSwitchOn
		if d.SwitchOn == 0 {
			d.Reason = ReasonNoHostOff
		}
		d.Rule = fmt.Sprintf("sesp: V=%.4g >= 1: switch on the request's %d hosts: %d (%d off)",
			in.V, n, d.SwitchOn, in.Off)
	}
	if d.SwitchOn == 0 {
		d.SwitchOff = idleOff(in, s.grace)
	}
	return d
}

// PEMP is the fuzzy controller of docs/models.md §5. With f the output
// of the fuzzy system for (V, C) and n = Need:
//
//	f <= 1: SwitchOn = min(Off, ceil(n*(1-f))) (the rest by preemption);
//	        for an external request, which cannot preempt, SwitchOn =
//	        min(Off, n - Room) instead when ceil(n*(1-f)) >= 1
//	        (externalShare: what it lacks, no more and no less);
//	f >  1: SwitchOn = 0 (all by preemption), Consolidate = Num with
//	        Num = n if f >= 2, else round(n*(f-1)),
//	        only if LocalNeedAtStart <= On - len(SwitchOff) - Num
//	        (else Consolidate = 0: the local leases need the hosts).
//
// Idle hosts past the grace period
// are switched off when nothing is switched on; the consolidation
// condition counts them as already off. ceil and round (half up) treat a
// value within 1e-9 of an integer as that integer, so float noise in f
// does not add a host.
type PEMP struct {
	fuzzy *System
	grace time.Duration
}

// NewPEMP returns the PEMP policy once p is valid; a nil p.Fuzzy takes
// DefaultSystem.
func NewPEMP(p Params) (*PEMP, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	fz := p.Fuzzy
	if fz == nil {
		fz = DefaultSystem()
	}
	return &PEMP{fuzzy: fz, grace: p.Grace}, nil
}

// Decide applies PEMP.
func (p *PEMP) Decide(in Input) Decision {
	n := max(0, in.Need)
	f, fired := p.fuzzy.Infer(in.V, in.C)
	d := Decision{F: f, Fired: fired}
	if f <= 1 {
		want := ceilTol(float64(n) * (1 - f))
		d.SwitchOn = min(want, max(0, in.Off))
		switch {
		case n == 0:
			d.Reason = ReasonNoRequest
		case want == 0:
			d.Reason = ReasonPreemptOnly
		case d.SwitchOn == 0:
			d.Reason = ReasonNoHostOff
		default:
			d.Reason = ReasonSwitchOn
		}
		d.Rule = fmt.Sprintf("pemp: V=%.4g C=%.4g f=%.4g <= 1: switch on min(off %d, ceil(%d*(1-f))=%d) = %d",
			in.V, in.C, f, in.Off, n, want, d.SwitchOn)
		if !in.Local && want > 0 {
			externalShare(&d, in, n, want)
			return d
		}
		if d.SwitchOn == 0 {
			d.SwitchOff = idleOff(in, p.grace)
		}
		return d
	}
	d.SwitchOff = idleOff(in, p.grace)
	num := n
	if f < 2 {
		num = roundTol(float64(n) * (f - 1))
	}
	stay := in.On - len(d.SwitchOff)
	switch {
	case n == 0:
		d.Reason = ReasonNoRequest
	case num == 0:
		d.Reason = ReasonNoConsolidate
	case in.LocalNeedAtStart <= stay-num:
		d.Consolidate = num
		d.Reason = ReasonConsolidate
	default:
		d.Reason = ReasonLocalNeedsHost
	}
	d.Rule = fmt.Sprintf("pemp: V=%.4g C=%.4g f=%.4g > 1: Num=%d; local need %d <= on %d - idle off %d - %d: %t; consolidate %d",
		in.V, in.C, f, num, in.LocalNeedAtStart, in.On, len(d.SwitchOff), num, in.LocalNeedAtStart <= stay-num, d.Consolidate)
	return d
}

// externalShare is PEMP's f <= 1 for an external request of n hosts, of
// which the policy wants want > 0 switched on. The rest cannot come from
// preemption: hosts switched on short of what the lease lacks (n - Room)
// would sit idle while it waits, and hosts beyond it would not be its.
// So the lease gets what it lacks, capped by the hosts off; nothing when
// it lacks nothing (it can start on what is on, and the idle hosts stay:
// they are its room).
func externalShare(d *Decision, in Input, n, want int) {
	lack := max(0, n-max(0, in.Room))
	d.SwitchOn = min(lack, max(0, in.Off))
	d.SwitchOff = nil
	d.Reason = ReasonExternalLack
	d.Rule = fmt.Sprintf("pemp: V=%.4g C=%.4g f=%.4g <= 1: external wants ceil(%d*(1-f))=%d: switch on min(off %d, lack %d-%d) = %d",
		in.V, in.C, d.F, n, want, in.Off, n, in.Room, d.SwitchOn)
}

// idleOff returns the idle hosts past the grace period (idle for at least
// grace at in.Now), longest idle first (ties by name), as many as can go
// while the hosts left on still cover LocalNeedAtStart.
func idleOff(in Input, grace time.Duration) []string {
	var due []IdleHost
	for _, h := range in.Idle {
		if in.Now.Sub(h.Since) >= grace {
			due = append(due, h)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].Since.Equal(due[j].Since) {
			return due[i].Since.Before(due[j].Since)
		}
		return due[i].Host < due[j].Host
	})
	k := min(len(due), max(0, in.On-in.LocalNeedAtStart))
	if k == 0 {
		return nil
	}
	out := make([]string, k)
	for i := range out {
		out[i] = due[i].Host
	}
	return out
}

// HostLeases is a switched-on host and the number of leases on it.
type HostLeases struct {
	Host   string
	Leases int
}

// FewestLeases picks the k hosts to consolidate: fewest leases first,
// ties by name. It returns fewer when there are fewer hosts.
func FewestLeases(hosts []HostLeases, k int) []string {
	h := append([]HostLeases(nil), hosts...)
	sort.Slice(h, func(i, j int) bool {
		if h[i].Leases != h[j].Leases {
			return h[i].Leases < h[j].Leases
		}
		return h[i].Host < h[j].Host
	})
	k = clamp(k, 0, len(h))
	out := make([]string, k)
	for i := range out {
		out[i] = h[i].Host
	}
	return out
}

const tol = 1e-9

// ceilTol is ceil(x), with x within tol above an integer taken as it.
func ceilTol(x float64) int { return int(math.Ceil(x - tol)) }

// roundTol rounds x >= 0 half up, with x within tol below a half taken as
// the half.
func roundTol(x float64) int { return int(math.Floor(x + 0.5 + tol)) }

func clamp(x, lo, hi int) int { return max(lo, min(x, hi)) }
