package api

import (
	"unicode"
	"unicode/utf8"
)

// Unprintable reports a rune that a terminal acts on rather than shows: a
// control character (C0, DEL, C1: an escape sequence colours the terminal,
// a newline fakes a table row), an explicit bidirectional mark or
// override (it reorders what a reader sees), or utf8.RuneError. The
// server refuses them in names and free text; the CLI escapes them.
func Unprintable(r rune) bool {
	switch {
	case r == utf8.RuneError || unicode.IsControl(r):
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r == 0x200E || r == 0x200F || r == 0x061C
}
