package power

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
	"github.com/bora-sched/bora/drivers/power/powercmd"
)

var _ drivers.PowerDriver = (*Command)(nil)

// CommandConfig holds the power commands (package powercmd, which
// config uses to check them without this driver).
type CommandConfig = powercmd.Config

// HostInfo is what the templates know of a host.
type HostInfo = powercmd.HostInfo

// Command is a PowerDriver that runs shell commands. Safe for concurrent
// use.
type Command struct {
	cfg   CommandConfig
	log   *logrus.Entry
	tmpls powercmd.Templates

	mu      sync.Mutex
	scripts map[string]powercmd.Scripts // by host
}

// NewCommand parses cfg's templates and expands them for every host.
// Errors name the field: "on: required", "status: template: ...",
// "off: host h1: template: ... can't evaluate field Rack". A nil log
// keeps the driver quiet.
func NewCommand(cfg CommandConfig, hosts map[string]HostInfo, log *logrus.Entry) (*Command, error) {
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = logrus.NewEntry(l)
	}
	tmpls, scripts, err := powercmd.Check(cfg, hosts)
	if err != nil {
		return nil, err
	}
	return &Command{cfg: cfg, log: log, tmpls: tmpls, scripts: scripts}, nil
}

// AddHost makes host h known (a host that joined the cluster since the
// driver was built), or updates what the commands know of it.
func (c *Command) AddHost(h HostInfo) error {
	if h.Name == "" {
		return fmt.Errorf("power: adding a host: empty name: %w", drivers.ErrUnknownHost)
	}
	s, err := c.tmpls.Expand(h)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scripts[h.Name] = s
	return nil
}

// script returns host's commands.
func (c *Command) script(host string) (powercmd.Scripts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.scripts[host]
	return s, ok
}

// PowerOn runs the on command for host, unless the status command (if
// any) says it is already on. It returns drivers.ErrUnknownHost, a
// *CommandError (wrapping ErrCommand, and ErrTimeout after the timeout)
// or ctx's error.
func (c *Command) PowerOn(ctx context.Context, host string) error {
	return c.switchTo(ctx, host, drivers.PowerOn)
}

// PowerOff runs the off command for host, unless the status command (if
// any) says it is already off; errors as PowerOn.
func (c *Command) PowerOff(ctx context.Context, host string) error {
	return c.switchTo(ctx, host, drivers.PowerOff)
}

func (c *Command) switchTo(ctx context.Context, host string, target drivers.PowerState) error {
	s, ok := c.script(host)
	if !ok {
		return fmt.Errorf("power %s %q: %w", target, host, drivers.ErrUnknownHost)
	}
	log := c.log.WithFields(logrus.Fields{"host": host, "op": "power-" + string(target)})
	if s.Status != "" {
		st, err := c.status(ctx, host, s.Status)
		switch {
		case err == nil && st == target:
			log.Debug("host already in power state")
			return nil
		case err != nil && ctx.Err() != nil:
			return err
		case err != nil:
			log.WithError(err).Warn("power status unknown, switching anyway")
		}
	}
	script := s.On
	if target == drivers.PowerOff {
		script = s.Off
	}
	_, err := c.run(ctx, string(target), host, script)
	if err != nil {
		log.WithError(err).Warn("power command failed")
		return err
	}
	log.Info("power command done")
	return nil
}

// Status runs the status command for host and reads its output: "on",
// "off", "booting" or "shutting-down", in any case, with spaces around.
// It returns drivers.ErrUnsupported when there is no status command,
// drivers.ErrUnknownHost, ErrBadStatus, a *CommandError or ctx's error.
func (c *Command) Status(ctx context.Context, host string) (drivers.PowerState, error) {
	s, ok := c.script(host)
	switch {
	case !ok:
		return "", fmt.Errorf("power status %q: %w", host, drivers.ErrUnknownHost)
	case s.Status == "":
		return "", fmt.Errorf("power status: no status command: %w", drivers.ErrUnsupported)
	}
	return c.status(ctx, host, s.Status)
}

func (c *Command) status(ctx context.Context, host, script string) (drivers.PowerState, error) {
	out, err := c.run(ctx, "status", host, script)
	if err != nil {
		return "", err
	}
	switch st := drivers.PowerState(strings.ToLower(strings.TrimSpace(out))); st {
	case drivers.PowerOn, drivers.PowerOff, drivers.PowerBooting, drivers.PowerShuttingDown:
		return st, nil
	}
	return "", fmt.Errorf("power status of %s: output %q: %w", host, lastLines(out, 1), ErrBadStatus)
}

// run runs script with /bin/sh -c under the timeout and returns its
// standard output.
func (c *Command) run(ctx context.Context, op, host, script string) (string, error) {
	rctx := ctx
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(rctx, "/bin/sh", "-c", script)
	var stdout, stderr tail
	stdout.max, stderr.max = 64<<10, 8<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second // a child keeping the pipes open
	start := time.Now()
	err := cmd.Run()
	c.log.WithFields(logrus.Fields{"host": host, "op": op, "took": time.Since(start)}).Debug("power command ran")
	if err == nil {
		return stdout.String(), nil
	}
	if ctx.Err() != nil { // the caller gave up, not the timeout
		return "", fmt.Errorf("power %s %s: %w", op, host, ctx.Err())
	}
	ce := &CommandError{Op: op, Host: host, ExitCode: -1, Stderr: lastLines(stderr.String(), 5), Err: err}
	var exit *exec.ExitError
	switch {
	case rctx.Err() != nil:
		ce.Timeout, ce.Err = c.cfg.Timeout, rctx.Err()
	case errors.As(err, &exit):
		ce.ExitCode = exit.ExitCode()
	}
	return "", ce
}

// CommandError is a power command that failed.
type CommandError struct {
	Op       string // "on", "off" or "status"
	Host     string
	ExitCode int           // -1 if it did not exit by itself
	Timeout  time.Duration // set when it was killed after the timeout
	Stderr   string        // its last lines of standard error
	Err      error         // the underlying error
}

func (e *CommandError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "power %s %s: ", e.Op, e.Host)
	switch {
	case e.Timeout > 0:
		fmt.Fprintf(&b, "timed out after %s", e.Timeout)
	case e.ExitCode >= 0:
		fmt.Fprintf(&b, "exit status %d", e.ExitCode)
	default:
		b.WriteString(e.Err.Error())
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, ": stderr: %s", strings.ReplaceAll(e.Stderr, "\n", " | "))
	}
	return b.String()
}

// Unwrap gives ErrCommand, ErrTimeout after a timeout, and the
// underlying error.
func (e *CommandError) Unwrap() []error {
	if e.Timeout > 0 {
		return []error{ErrCommand, ErrTimeout, e.Err}
	}
	return []error{ErrCommand, e.Err}
}

// lastLines is the last n non-empty lines of s.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tail is an io.Writer that keeps the last max bytes written.
type tail struct {
	max int
	buf bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if over := t.buf.Len() + len(p) - t.max; over > 0 {
		t.buf.Next(over)
	}
	t.buf.Write(p)
	return n, nil
}

func (t *tail) String() string { return t.buf.String() }
