package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// The on-disk layout of a bbolt file (go.etcd.io/bbolt v1.5.0,
// internal/common), read here without bbolt: bbolt maps the file and
// trusts every page id and offset in it, so a damaged file makes it read
// outside the file (SIGBUS, SIGSEGV) or fail an assertion (panic).
// verifyFile walks the whole file with plain reads first and bbolt only
// sees files whose every reference stays inside the file.
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16 // id uint64, flags uint16, count uint16, overflow uint32
	elementSize    = 16 // branch: pos, ksize uint32, pgid uint64; leaf: flags, pos, ksize, vsize uint32
	metaSize       = 64 // magic, version, pageSize, flags uint32; root, sequence, freelist, pgid, txid, checksum uint64
	bucketHdrSize  = 16 // root pgid, sequence uint64

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagFreelist = 0x10
	leafBucket   = 0x01 // a leaf element whose value is a bucket

	noFreelist = ^uint64(0)
	maxDepth   = 64 // of the B+trees and buckets; bbolt's are a few levels
)

// le is bbolt's byte order on the machines bora runs on (it writes its
// structs as they are in memory).
var le = binary.NativeEndian

// meta is a parsed meta page.
type meta struct {
	valid    error // nil when magic, version and checksum are right
	pageSize uint64
	root     uint64
	freelist uint64
	hwm      uint64 // pgid: the page count the file's pages are below
	txid     uint64
}

func parseMeta(b []byte) meta {
	if len(b) < pageHeaderSize+metaSize {
		return meta{valid: errors.New("short")}
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	h := fnv.New64a()
	_, _ = h.Write(m[:56])
	out := meta{pageSize: uint64(le.Uint32(m[8:])), root: le.Uint64(m[16:]),
		freelist: le.Uint64(m[32:]), hwm: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}
	switch {
	case le.Uint32(m[0:]) != boltMagic:
		out.valid = errors.New("no bbolt magic number")
	case le.Uint32(m[4:]) != boltVersion:
		out.valid = fmt.Errorf("bbolt format version %d, want %d", le.Uint32(m[4:]), boltVersion)
	case le.Uint64(m[56:]) != h.Sum64():
		out.valid = errors.New("bad checksum")
	}
	return out
}

// verifier walks a bbolt file with reads.
type verifier struct {
	f    io.ReaderAt
	size uint64
	ps   uint64 // page size
	hwm  uint64
	used map[uint64]bool // pages reached from the root
}

// verifyFile checks that the bbolt file at path can be handed to bbolt:
// a valid meta page chosen as bbolt chooses it, a file long enough for
// the pages it claims, and a tree whose every page, element, key, value
// and nested bucket lies inside the file, with sane page types and no
// page reached twice. It returns ErrDamaged or ErrNotStore with the
// first problem, nil for a sound file.
func verifyFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return fmt.Errorf("%w: the file is empty (0 bytes)", ErrDamaged)
	}
	v := &verifier{f: f, size: uint64(fi.Size()), used: map[uint64]bool{}}
	m, err := v.chooseMeta()
	if err != nil {
		return err
	}
	v.ps, v.hwm = m.pageSize, m.hwm
	switch {
	case m.hwm < 4:
		return fmt.Errorf("%w: the header says %d pages, a store has at least 4", ErrDamaged, m.hwm)
	case m.hwm > v.size/v.ps:
		return fmt.Errorf("%w: the header says %d pages of %d bytes (%d bytes), the file has only %d bytes: truncated?",
			ErrDamaged, m.hwm, v.ps, m.hwm*v.ps, v.size)
	}
	if err := v.tree(m.root, 0); err != nil {
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	if m.freelist != noFreelist {
		if err := v.freelist(m.freelist); err != nil {
			return fmt.Errorf("%w: freelist: %w", ErrDamaged, err)
		}
	}
	return nil
}

// chooseMeta finds the page size as bbolt does (the first meta page, or
// the second at a power-of-two offset) and returns the meta page bbolt
// would use: the valid one of the two with the higher transaction id.
func (v *verifier) chooseMeta() (meta, error) {
	m0 := v.metaAt(0)
	ps := m0.pageSize
	if m0.valid != nil {
		ps = 0
		for i := 0; i <= 14 && ps == 0; i++ {
			if m := v.metaAt(1024 << i); m.valid == nil {
				ps = m.pageSize
			}
		}
	}
	if ps == 0 {
		return meta{}, fmt.Errorf("%w: no valid bbolt header (meta page): %v", ErrNotStore, m0.valid)
	}
	if ps < 512 || ps&(ps-1) != 0 || ps > 1<<24 {
		return meta{}, fmt.Errorf("%w: page size %d in the header", ErrDamaged, ps)
	}
	if v.size < 2*ps {
		return meta{}, fmt.Errorf("%w: %d bytes is shorter than the two header pages (%d bytes): truncated?", ErrDamaged, v.size, 2*ps)
	}
	a, b := v.metaAt(0), v.metaAt(ps)
	if b.txid > a.txid {
		a, b = b, a
	}
	if a.valid != nil {
		a = b
	}
	if a.valid != nil {
		return meta{}, fmt.Errorf("%w: both header pages are invalid: %v", ErrDamaged, a.valid)
	}
	if a.pageSize != ps {
		return meta{}, fmt.Errorf("%w: the header pages disagree on the page size (%d, %d)", ErrDamaged, ps, a.pageSize)
	}
	return a, nil
}

func (v *verifier) metaAt(off uint64) meta {
	b := make([]byte, pageHeaderSize+metaSize)
	if _, err := v.f.ReadAt(b, int64(off)); err != nil {
		return meta{valid: err}
	}
	return parseMeta(b)
}

// page reads page id with its overflow pages, after checking that they
// are data pages inside the high-water mark whose header names them.
func (v *verifier) page(id uint64) ([]byte, error) {
	if id < 2 || id >= v.hwm {
		return nil, fmt.Errorf("page %d is outside 2..%d", id, v.hwm-1)
	}
	hdr := make([]byte, pageHeaderSize)
	if _, err := v.f.ReadAt(hdr, int64(id*v.ps)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := le.Uint64(hdr); got != id {
		return nil, fmt.Errorf("page %d: its header says page %d (overwritten or zeroed)", id, got)
	}
	overflow := uint64(le.Uint32(hdr[12:]))
	if id+overflow >= v.hwm {
		return nil, fmt.Errorf("page %d: %d overflow pages run past the last page %d", id, overflow, v.hwm-1)
	}
	buf := make([]byte, (overflow+1)*v.ps)
	if _, err := v.f.ReadAt(buf, int64(id*v.ps)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return buf, nil
}

// claim marks pages id..id+overflow as reached, once.
func (v *verifier) claim(id uint64, p []byte) error {
	for i := id; i < id+uint64(len(p))/v.ps; i++ {
		if v.used[i] {
			return fmt.Errorf("page %d is reached twice", i)
		}
		v.used[i] = true
	}
	return nil
}

// tree checks the B+tree whose root is page id.
func (v *verifier) tree(id uint64, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("page %d: trees nested deeper than %d", id, maxDepth)
	}
	p, err := v.page(id)
	if err != nil {
		return err
	}
	if err := v.claim(id, p); err != nil {
		return err
	}
	switch flags := le.Uint16(p[8:]); flags {
	case flagBranch:
		return v.branch(id, p, depth)
	case flagLeaf:
		return v.leaf(fmt.Sprintf("page %d", id), p, depth)
	default:
		return fmt.Errorf("page %d: type %#x where a branch or leaf page belongs", id, flags)
	}
}

// elements returns the element count of page p, checked against its size.
func elements(where string, p []byte) (int, error) {
	n := int(le.Uint16(p[10:]))
	if pageHeaderSize+n*elementSize > len(p) {
		return 0, fmt.Errorf("%s: %d elements do not fit in %d bytes", where, n, len(p))
	}
	return n, nil
}

// span checks that the bytes [at+pos, at+pos+n) lie inside p.
func span(where string, p []byte, at int, pos, n uint64) error {
	if uint64(at)+pos+n > uint64(len(p)) {
		return fmt.Errorf("%s: an element points %d bytes past the page's %d", where, uint64(at)+pos+n-uint64(len(p)), len(p))
	}
	return nil
}

func (v *verifier) branch(id uint64, p []byte, depth int) error {
	where := fmt.Sprintf("page %d", id)
	n, err := elements(where, p)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s: a branch page without elements", where)
	}
	for i := range n {
		at := pageHeaderSize + i*elementSize
		e := p[at:]
		if err := span(where, p, at, uint64(le.Uint32(e[0:])), uint64(le.Uint32(e[4:]))); err != nil {
			return err
		}
		if err := v.tree(le.Uint64(e[8:]), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// leaf checks a leaf page (a page of the file, or a bucket's inline
// page) and the buckets its elements hold.
func (v *verifier) leaf(where string, p []byte, depth int) error {
	n, err := elements(where, p)
	if err != nil {
		return err
	}
	for i := range n {
		at := pageHeaderSize + i*elementSize
		e := p[at:]
		pos, ksize, vsize := uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		if err := span(where, p, at, pos, ksize+vsize); err != nil {
			return err
		}
		if le.Uint32(e[0:])&leafBucket == 0 {
			continue
		}
		val := p[uint64(at)+pos+ksize : uint64(at)+pos+ksize+vsize]
		if err := v.bucket(fmt.Sprintf("%s: bucket %q", where, p[uint64(at)+pos:uint64(at)+pos+ksize]), val, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// bucket checks a bucket value: its root page, or its inline page.
func (v *verifier) bucket(where string, val []byte, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: buckets nested deeper than %d", where, maxDepth)
	}
	if len(val) < bucketHdrSize {
		return fmt.Errorf("%s: %d bytes, a bucket header has %d", where, len(val), bucketHdrSize)
	}
	if root := le.Uint64(val); root != 0 {
		return v.tree(root, depth)
	}
	inline := val[bucketHdrSize:]
	if len(inline) < pageHeaderSize {
		return fmt.Errorf("%s: inline page of %d bytes", where, len(inline))
	}
	if flags := le.Uint16(inline[8:]); flags != flagLeaf {
		return fmt.Errorf("%s: inline page of type %#x, want a leaf", where, flags)
	}
	return v.leaf(where, inline, depth)
}

// freelist checks the freelist page: inside the file, and listing only
// data pages that the tree does not use.
func (v *verifier) freelist(id uint64) error {
	p, err := v.page(id)
	if err != nil {
		return err
	}
	if flags := le.Uint16(p[8:]); flags != flagFreelist {
		return fmt.Errorf("page %d: type %#x, want a freelist page", id, flags)
	}
	if err := v.claim(id, p); err != nil {
		return err
	}
	first, n := uint64(0), uint64(le.Uint16(p[10:]))
	if n == 0xFFFF {
		first, n = 1, le.Uint64(p[pageHeaderSize:])
	}
	if n > (uint64(len(p))-pageHeaderSize)/8-first {
		return fmt.Errorf("page %d: %d free page ids do not fit in %d bytes", id, n, len(p))
	}
	freed := make(map[uint64]bool, n)
	for i := range n {
		free := le.Uint64(p[pageHeaderSize+(first+i)*8:])
		switch {
		case free < 2 || free >= v.hwm:
			return fmt.Errorf("page %d: free page %d is outside 2..%d", id, free, v.hwm-1)
		case v.used[free]:
			return fmt.Errorf("page %d: page %d is both free and in use", id, free)
		case freed[free]:
			return fmt.Errorf("page %d: page %d is listed twice", id, free)
		}
		freed[free] = true
	}
	return nil
}
