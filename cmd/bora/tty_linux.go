package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// fileIsTerminal: a terminal answers the TCGETS ioctl.
func fileIsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
