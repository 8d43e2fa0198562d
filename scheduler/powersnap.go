package scheduler

import (
	"fmt"
	"sort"
	"time"

	"github.com/bora-sched/bora/slottable"
)

// SavedPower is the power cycle of a host that is not plainly on, as
// SavedState carries it: its power reservation (when it holds one) and
// the times of its cycle. Evacuating marks a host being emptied by
// Evacuate (it may be on, without a reservation).
type SavedPower struct {
	Host        slottable.HostID  `json:"host"`
	Reservation *SavedReservation `json:"reservation,omitempty"`
	Down        time.Time         `json:"down,omitzero"`
	Off         time.Time         `json:"off,omitzero"`
	Boot        time.Time         `json:"boot,omitzero"`
	On          time.Time         `json:"on,omitzero"`
	Disabled    bool              `json:"disabled,omitempty"`
	Evacuating  bool              `json:"evacuating,omitempty"`
	// WasClosed is, for an evacuating host, whether it was closed before.
	WasClosed bool `json:"was_closed,omitempty"`
}

// savePower lists the power cycles, by host.
func (s *Scheduler) savePower() []SavedPower {
	byHost := map[slottable.HostID]*SavedPower{}
	get := func(h slottable.HostID) *SavedPower {
		if byHost[h] == nil {
			byHost[h] = &SavedPower{Host: h}
		}
		return byHost[h]
	}
	for h, p := range s.power.hosts {
		sp := get(h)
		sp.Down, sp.Off, sp.Boot, sp.On, sp.Disabled = p.down, p.off, p.boot, p.on, p.disabled
		if r, ok := s.table.Get(p.res); ok && p.res != 0 {
			sp.Reservation = &SavedReservation{Host: h, Start: r.Start, End: r.End, Res: r.Res}
		}
	}
	for h, was := range s.power.evac {
		sp := get(h)
		sp.Evacuating, sp.WasClosed = true, was
	}
	out := make([]SavedPower, 0, len(byHost))
	for _, sp := range byHost {
		out = append(out, *sp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// restorePower puts the saved power cycles back: reservations re-added,
// hosts switched off or being emptied closed again.
func (s *Scheduler) restorePower(saved []SavedPower) error {
	s.power.init()
	for _, sp := range saved {
		if _, ok := s.table.Host(sp.Host); !ok {
			return fmt.Errorf("power state of host %d: %w", sp.Host, ErrUnknownHost)
		}
		if sp.Evacuating {
			s.power.evac[sp.Host] = sp.WasClosed
			if err := s.table.SetClosed(sp.Host, true); err != nil {
				return err
			}
		}
		if sp.Off.IsZero() && sp.Down.IsZero() {
			continue // only being emptied
		}
		p := &hostPower{down: sp.Down, off: sp.Off, boot: sp.Boot, on: sp.On, disabled: sp.Disabled}
		if r := sp.Reservation; r != nil {
			id, err := s.table.Add(slottable.Reservation{Host: sp.Host, Kind: slottable.KindPower, Start: r.Start, End: r.End, Res: r.Res})
			if err != nil {
				return fmt.Errorf("restoring the power reservation of host %d: %w", sp.Host, err)
			}
			p.res = id
		}
		s.power.hosts[sp.Host] = p
		closed := p.boot.IsZero() || p.disabled
		if err := s.table.SetClosed(sp.Host, closed); err != nil {
			return err
		}
		if !p.boot.IsZero() {
			s.power.pending = append(s.power.pending, sp.Host)
		}
	}
	return nil
}
