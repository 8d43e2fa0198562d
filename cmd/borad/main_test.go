package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestHelpIsNotAnError: --help (and -h) print the usage on stdout and
// return flag.ErrHelp, which main turns into exit 0; a bad flag is an
// error with the usage on stderr (exit 2).
func TestHelpIsNotAnError(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		var stdout, stderr bytes.Buffer
		_, err := parseFlags([]string{arg}, &stdout, &stderr)
		if !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(stdout.String(), "usage: borad") ||
			!strings.Contains(stdout.String(), "-config") || stderr.Len() != 0 {
			t.Errorf("%s: err %v, stdout %q, stderr %q", arg, err, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	_, err := parseFlags([]string{"--colour"}, &stdout, &stderr)
	if err == nil || errors.Is(err, flag.ErrHelp) || stdout.Len() != 0 ||
		!strings.HasPrefix(stderr.String(), "borad: flag provided but not defined: -colour\nusage: borad") {
		t.Errorf("bad flag: err %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	f, err := parseFlags([]string{"--config", "x.yaml", "--speed", "60"}, &stdout, &stderr)
	if err != nil || f.config != "x.yaml" || f.speed != 60 {
		t.Errorf("flags: %+v, %v", f, err)
	}
}
