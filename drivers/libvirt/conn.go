package libvirt

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"
	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/drivers"
)

// host is one libvirtd host and its connection, kept open by watch.
type host struct {
	cfg HostConfig
	log *logrus.Entry

	mu   sync.Mutex
	conn *golibvirt.Libvirt // nil while the host is down
	info *nodeInfo          // of the current connection, read once
	last *nodeInfo          // of an earlier connection (capacity of a down host)
}

type nodeInfo struct {
	cpus   int64 // cores (threads) libvirt reports
	memory int64 // MB
}

// connection returns the open connection, or an error wrapping
// drivers.ErrHostDown.
func (h *host) connection() (*golibvirt.Libvirt, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn == nil {
		return nil, fmt.Errorf("host %s: %w", h.cfg.Name, drivers.ErrHostDown)
	}
	return h.conn, nil
}

// setConn records the connection (nil: the host is down) and says whether
// the host changed between up and down.
func (h *host) setConn(c *golibvirt.Libvirt) (changed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed = (h.conn == nil) != (c == nil)
	h.conn = c
	if h.info != nil {
		h.last = h.info
	}
	h.info = nil
	return changed
}

// dial connects to uri, bounded by ctx. A connection that completes after
// ctx ended is closed.
func dial(ctx context.Context, uri string) (*golibvirt.Libvirt, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, err
	}
	type result struct {
		l   *golibvirt.Libvirt
		err error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := golibvirt.ConnectToURI(u)
		ch <- result{l, err}
	}()
	select {
	case r := <-ch:
		return r.l, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.err == nil {
				_ = r.l.Disconnect()
			}
		}()
		return nil, ctx.Err()
	}
}

// watch keeps h connected until the driver closes: it reconnects with
// exponential backoff, consumes lifecycle events, probes the connection
// every Keepalive, and reports HostDown / HostUp on changes. conn is the
// connection New made (nil if that failed).
func (d *Driver) watch(h *host, conn *golibvirt.Libvirt) {
	defer d.wg.Done()
	backoff := d.cfg.ReconnectMin
	for {
		if conn == nil {
			ctx, cancel := context.WithTimeout(d.ctx, d.cfg.ConnectTimeout)
			c, err := dial(ctx, h.cfg.URI)
			cancel()
			if d.ctx.Err() != nil {
				if err == nil {
					_ = c.Disconnect()
				}
				return
			}
			if err != nil {
				h.log.WithError(err).WithField("retry_in", backoff).Debug("host unreachable")
				if !d.sleep(backoff) {
					return
				}
				backoff = min(2*backoff, d.cfg.ReconnectMax)
				continue
			}
			conn, backoff = c, d.cfg.ReconnectMin
			if h.setConn(conn) {
				h.log.Info("host up")
				d.queue.push(drivers.Event{Kind: drivers.HostUp, Host: h.cfg.Name, Detail: "connected to " + h.cfg.URI})
			}
		}
		reason := d.serve(h, conn)
		_ = conn.Disconnect()
		conn = nil
		if d.ctx.Err() != nil {
			return
		}
		if h.setConn(nil) {
			h.log.WithField("reason", reason).Warn("host down")
			d.queue.push(drivers.Event{Kind: drivers.HostDown, Host: h.cfg.Name, Detail: reason})
		}
	}
}

// serve consumes conn's lifecycle events until the connection fails or
// the driver closes, and says why it returned.
func (d *Driver) serve(h *host, conn *golibvirt.Libvirt) string {
	ctx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	events, err := conn.LifecycleEvents(ctx)
	if err != nil {
		return "cannot subscribe to lifecycle events: " + err.Error()
	}
	defer func() {
		// go-libvirt's event goroutine may be blocked sending one more event.
		go func() {
			for range events {
			}
		}()
	}()
	tick := time.NewTicker(d.cfg.Keepalive)
	defer tick.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return "driver closed"
		case <-conn.Disconnected():
			return "connection lost"
		case m, ok := <-events:
			if !ok {
				return "event stream closed"
			}
			d.lifecycle(h, m)
		case <-tick.C:
			pctx, pcancel := context.WithTimeout(d.ctx, d.cfg.ConnectTimeout)
			err := call(pctx, h.cfg.Name, conn, func(l *golibvirt.Libvirt) error {
				_, err := l.ConnectGetLibVersion()
				return err
			})
			pcancel()
			if err != nil && d.ctx.Err() == nil {
				return "keepalive failed: " + err.Error()
			}
		}
	}
}

// sleep waits for d, or less if the driver closes; false means it closed.
func (d *Driver) sleep(t time.Duration) bool {
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-d.ctx.Done():
		return false
	}
}

// call runs f on conn, bounded by ctx: when ctx ends first, call returns
// ctx's error and f goes on in the background (libvirtd finishes what it
// was asked; the operations are idempotent, so the retry sees the
// outcome). An error that cost the connection wraps drivers.ErrHostDown.
func call(ctx context.Context, hostName string, conn *golibvirt.Libvirt, f func(*golibvirt.Libvirt) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- f(conn) }()
	select {
	case err := <-done:
		if err != nil && !isLibvirtError(err) && !conn.IsConnected() {
			return fmt.Errorf("host %s: %w (%v)", hostName, drivers.ErrHostDown, err)
		}
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do runs f on the connection of h, bounded by ctx.
func (d *Driver) do(ctx context.Context, h *host, f func(*golibvirt.Libvirt) error) error {
	conn, err := h.connection()
	if err != nil {
		return err
	}
	return call(ctx, h.cfg.Name, conn, f)
}

// isLibvirtError says whether err is an error libvirtd answered with (as
// opposed to a transport failure).
func isLibvirtError(err error) bool {
	var e golibvirt.Error
	return errors.As(err, &e)
}

// libvirtCode is the libvirt error number of err, or -1.
func libvirtCode(err error) int {
	var e golibvirt.Error
	if errors.As(err, &e) {
		return int(e.Code)
	}
	return -1
}

// notRunning says whether err is libvirt's "domain is not running" (or
// "no such domain"): what an operation on a VM that just stopped gets.
func notRunning(err error) bool {
	c := libvirtCode(err)
	return c == int(golibvirt.ErrOperationInvalid) || c == int(golibvirt.ErrNoDomain)
}
