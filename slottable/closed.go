package slottable

// SetClosed closes host h to new placements (closed true) or opens it
// again. A closed host keeps its reservations, but FitCount reports
// nothing fits there and EarliestFit never chooses it: this is how a
// disabled host, or one switched off, is kept out of new plans.
func (t *Table) SetClosed(h HostID, closed bool) error {
	if !t.validHost(h) {
		return ErrUnknownHost
	}
	for len(t.closed) <= int(h) {
		t.closed = append(t.closed, false)
	}
	if t.closed[h] && !closed {
		t.logFreed(0, h, negInf, posInf, nil, false, absence{}, 0, 0) // opened: capacity everywhere
	}
	if !t.closed[h] && closed {
		t.logRaised(0, h, negInf, posInf, true, 0) // closed: no room anywhere
	}
	if t.closed[h] != closed {
		t.bump()
		if t.cl != nil { // its usage and capacity out, or in
			sign := int64(1)
			if closed {
				sign = -1
			}
			t.cl.openHost(t, h, sign)
		}
	}
	t.closed[h] = closed
	return nil
}

// Closed reports whether host h is closed to new placements.
func (t *Table) Closed(h HostID) bool {
	return int(h) < len(t.closed) && h >= 0 && t.closed[h]
}
