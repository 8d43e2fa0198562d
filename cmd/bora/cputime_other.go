//go:build !unix

package main

import "time"

// processCPU cannot tell the CPU time here.
func processCPU() (user, sys time.Duration, ok bool) { return 0, 0, false }
