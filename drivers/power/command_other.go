//go:build !unix

package power

import "os/exec"

// killGroup keeps exec's default: only the shell is killed on
// cancellation; WaitDelay stops the wait for its children.
func killGroup(*exec.Cmd) {}
