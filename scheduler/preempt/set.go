package preempt

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Set is a set of candidate indexes, stored as a bitset of 64-bit words so
// that it works for any number of candidates. The zero value is the empty
// set. Like a slice, a Set refers to its words: copying a Set and then
// calling Add or Remove on the copy may change the original; use Clone for
// an independent copy. Sets passed to a Feasible oracle are fresh copies the
// oracle may keep.
type Set struct {
	words []uint64
}

// NewSet returns an empty set with room for indexes 0..n-1.
func NewSet(n int) Set {
	if n < 0 {
		n = 0
	}
	return Set{words: make([]uint64, (n+63)/64)}
}

// SetOf returns the set holding the given indexes. It panics on a negative
// index.
func SetOf(indexes ...int) Set {
	var s Set
	for _, i := range indexes {
		s.Add(i)
	}
	return s
}

// maskSet returns the set whose members are the bits of m.
func maskSet(m uint64) Set {
	return Set{words: []uint64{m}}
}

// Has reports whether i is in the set.
func (s Set) Has(i int) bool {
	if i < 0 {
		return false
	}
	w := i >> 6
	return w < len(s.words) && s.words[w]&(1<<uint(i&63)) != 0
}

// Add puts i in the set, growing it as needed. It panics if i is negative.
func (s *Set) Add(i int) {
	if i < 0 {
		panic("preempt: Set.Add with a negative index")
	}
	w := i >> 6
	for len(s.words) <= w {
		s.words = append(s.words, 0)
	}
	s.words[w] |= 1 << uint(i&63)
}

// Remove takes i out of the set; removing an absent index does nothing.
func (s *Set) Remove(i int) {
	if i < 0 {
		return
	}
	if w := i >> 6; w < len(s.words) {
		s.words[w] &^= 1 << uint(i&63)
	}
}

// Len returns the number of members.
func (s Set) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Indexes returns the members in ascending order (nil for the empty set).
func (s Set) Indexes() []int { return s.AppendIndexes(nil) }

// AppendIndexes appends the members to out in ascending order.
func (s Set) AppendIndexes(out []int) []int {
	for wi, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, wi*64+b)
			w &= w - 1
		}
	}
	return out
}

// Clone returns an independent copy of the set.
func (s Set) Clone() Set {
	return Set{words: slices.Clone(s.trimmed())}
}

// Equal reports whether s and t have the same members.
func (s Set) Equal(t Set) bool {
	return slices.Equal(s.trimmed(), t.trimmed())
}

// String formats the set as its ascending indexes, e.g. "{0 3 5}".
func (s Set) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for k, i := range s.Indexes() {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteByte('}')
	return b.String()
}

// trimmed returns the words without trailing zero words.
func (s Set) trimmed() []uint64 {
	w := s.words
	for len(w) > 0 && w[len(w)-1] == 0 {
		w = w[:len(w)-1]
	}
	return w
}

// key returns a map key that is equal for sets with equal members.
func (s Set) key() string {
	w := s.trimmed()
	b := make([]byte, 0, 8*len(w))
	for _, x := range w {
		for k := 0; k < 64; k += 8 {
			b = append(b, byte(x>>uint(k)))
		}
	}
	return string(b)
}

// compareSets orders sets by size, then by their ascending indexes
// lexicographically. Between two lists of one length the first that
// differs holds the least member of one set that the other lacks, and a
// smaller index than the other's there: the set holding the lowest bit
// where they differ comes first.
func compareSets(a, b Set) int {
	if c := a.Len() - b.Len(); c != 0 {
		return c
	}
	for i := range max(len(a.words), len(b.words)) {
		var x, y uint64
		if i < len(a.words) {
			x = a.words[i]
		}
		if i < len(b.words) {
			y = b.words[i]
		}
		if d := x ^ y; d != 0 {
			if x&(d&-d) != 0 {
				return -1
			}
			return 1
		}
	}
	return 0
}
