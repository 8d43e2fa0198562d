//go:build !linux

package main

import "os"

// fileIsTerminal is false off Linux: no progress line there.
func fileIsTerminal(*os.File) bool { return false }
