package slottable

// leafLinks are a B+-tree leaf's neighbours in key order (nilNode at the
// ends): the change-point and interval trees link their leaves so that
// walks go from leaf to leaf.
type leafLinks struct{ prev, next int32 }

// unlink takes the leaf whose links are l out of its chain; at gives a
// leaf's links by index.
func (l *leafLinks) unlink(at func(int32) *leafLinks) {
	if l.prev >= 0 {
		at(l.prev).next = l.next
	}
	if l.next >= 0 {
		at(l.next).prev = l.prev
	}
	l.prev, l.next = nilNode, nilNode
}

// linkAfter puts leaf m, whose links are lm, after leaf n, whose links
// are l.
func (l *leafLinks) linkAfter(n, m int32, lm *leafLinks, at func(int32) *leafLinks) {
	lm.prev, lm.next = n, l.next
	if l.next >= 0 {
		at(l.next).prev = m
	}
	l.next = m
}
