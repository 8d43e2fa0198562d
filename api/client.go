package api

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultClientTimeout bounds a Client's request when ClientOptions.Timeout
// is 0.
const DefaultClientTimeout = 30 * time.Second

// maxAnswer is the largest answer body the client reads.
const maxAnswer = 64 << 20

// ClientOptions say how to reach the daemon.
type ClientOptions struct {
	// Socket is the daemon's unix socket; used when Server is empty.
	Socket string
	// Server is "https://host:port" (or "http://" on a loopback address
	// or with Insecure, for tests); it takes precedence over Socket.
	Server string
	// Token is sent as "Authorization: Bearer TOKEN" (on the socket too,
	// where it replaces the caller's uid identity).
	Token string
	// Timeout bounds each request (0 = DefaultClientTimeout).
	Timeout time.Duration
	// CACert is a PEM file of the CA (or the self-signed certificate) to
	// trust for Server, instead of the system's roots.
	CACert string
	// Insecure skips the verification of the server's certificate and
	// allows plain http:// to any host.
	Insecure bool
}

// Client calls the daemon's API. Its methods mirror Service's (the caller
// is whoever the server authenticates) and return an *APIError for a
// non-2xx answer, an error wrapping ErrUnreachable when the daemon cannot
// be reached and one wrapping ErrForbidden when the socket's permissions
// keep the caller out.
type Client struct {
	http    *http.Client
	base    string // "http://bora" on the socket, else Server
	token   string
	socket  string
	server  string
	timeout time.Duration
}

// NewClient checks opts and builds a client; it does not connect.
func NewClient(opts ClientOptions) (*Client, error) {
	c := &Client{token: opts.Token, timeout: opts.Timeout}
	if c.timeout == 0 {
		c.timeout = DefaultClientTimeout
	}
	tr := &http.Transport{MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second, TLSHandshakeTimeout: 10 * time.Second}
	switch {
	case opts.Server != "":
		u, err := url.Parse(opts.Server)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, fmt.Errorf("server %q: want https://HOST:PORT", opts.Server)
		}
		if u.Scheme == "http" && !opts.Insecure && !isLoopback(u.Hostname()) {
			return nil, fmt.Errorf("server %q: refusing plain http:// to a host other than loopback: the bearer token would travel in clear; use https://HOST:PORT", opts.Server)
		}
		tlsConf, err := clientTLS(opts)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = tlsConf
		tr.Proxy = http.ProxyFromEnvironment
		c.server = strings.TrimRight(u.String(), "/")
		c.base = c.server
	case opts.Socket != "":
		c.socket = opts.Socket
		c.base = "http://bora"
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", opts.Socket)
		}
	default:
		return nil, errors.New("no socket and no server to call")
	}
	c.http = &http.Client{Transport: tr, Timeout: c.timeout, CheckRedirect: noRedirect}
	return c, nil
}

// noRedirect refuses to follow a redirect: the API never sends one, and
// following it would carry the token along (net/http keeps Authorization
// on a redirect to the same host, from https:// down to http:// too).
func noRedirect(req *http.Request, _ []*http.Request) error {
	return fmt.Errorf("the server redirected to %s: bora's API never redirects, not following (the bearer token would go along)", req.URL.Redacted())
}

func clientTLS(opts ClientOptions) (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: opts.Insecure} //nolint:gosec // asked for
	if opts.CACert != "" {
		pem, err := os.ReadFile(opts.CACert)
		if err != nil {
			return nil, fmt.Errorf("CA certificate: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA certificate %s: no PEM certificate in it", opts.CACert)
		}
		conf.RootCAs = pool
	}
	return conf, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CreateLease submits a lease. The answer may be a lease in the rejected
// state: that is a successful call.
func (c *Client) CreateLease(ctx context.Context, r LeaseRequest) (Lease, error) {
	var l Lease
	err := c.do(ctx, http.MethodPost, "/leases", r, &l)
	return l, err
}

// ListLeases lists the leases the caller may see that match f.
func (c *Client) ListLeases(ctx context.Context, f LeaseFilter) ([]Lease, error) {
	q := url.Values{}
	if f.State != "" {
		q.Set("state", f.State)
	}
	if f.User != "" {
		q.Set("user", f.User)
	}
	var ls []Lease
	err := c.do(ctx, http.MethodGet, withQuery("/leases", q), nil, &ls)
	return ls, err
}

// GetLease returns one lease (ErrNotFound also for another user's lease).
func (c *Client) GetLease(ctx context.Context, id uint64) (Lease, error) {
	var l Lease
	err := c.do(ctx, http.MethodGet, leasePath(id), nil, &l)
	return l, err
}

// CancelLease cancels a lease.
func (c *Client) CancelLease(ctx context.Context, id uint64) (Lease, error) {
	var l Lease
	err := c.do(ctx, http.MethodDelete, leasePath(id), nil, &l)
	return l, err
}

// LeaseAction asks for "suspend", "resume" or "migrate" (admin) or
// "cancel".
func (c *Client) LeaseAction(ctx context.Context, id uint64, action string) (Lease, error) {
	var l Lease
	err := c.do(ctx, http.MethodPost, leasePath(id)+"/"+url.PathEscape(action), nil, &l)
	return l, err
}

// ListHosts lists the hosts.
func (c *Client) ListHosts(ctx context.Context) ([]Host, error) {
	var hs []Host
	err := c.do(ctx, http.MethodGet, "/hosts", nil, &hs)
	return hs, err
}

// GetHost returns one host.
func (c *Client) GetHost(ctx context.Context, name string) (Host, error) {
	var h Host
	err := c.do(ctx, http.MethodGet, "/hosts/"+url.PathEscape(name), nil, &h)
	return h, err
}

// HostAction asks for "enable", "disable", "on" or "off" (admin).
func (c *Client) HostAction(ctx context.Context, name, action string) (Host, error) {
	var h Host
	err := c.do(ctx, http.MethodPost, "/hosts/"+url.PathEscape(name)+"/"+url.PathEscape(action), nil, &h)
	return h, err
}

// Schedule returns the slot table between from and to, each an RFC 3339
// time, "now", a signed duration from the daemon's now ("-1h") or empty
// for the daemon's default.
func (c *Client) Schedule(ctx context.Context, from, to string) (Schedule, error) {
	q := url.Values{}
	if from != "" {
		q.Set("from", from)
	}
	if to != "" {
		q.Set("to", to)
	}
	var s Schedule
	err := c.do(ctx, http.MethodGet, withQuery("/schedule", q), nil, &s)
	return s, err
}

// Stats returns the daemon's counters.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := c.do(ctx, http.MethodGet, "/stats", nil, &s)
	return s, err
}

// Health is nil when the daemon says it is healthy.
func (c *Client) Health(ctx context.Context) error {
	return c.call(ctx, http.MethodGet, "/healthz", nil, nil)
}

func leasePath(id uint64) string { return "/leases/" + strconv.FormatUint(id, 10) }

func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// do calls a versioned path.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	return c.call(ctx, method, "/"+Version+path, in, out)
}

func (c *Client) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("reading the answer to %s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return answerError(resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decoding the answer to %s %s: %w", method, path, err)
	}
	return nil
}

// answerError reads an error answer: an Error body, or else the start of
// whatever came (a proxy's page).
func answerError(status int, b []byte) *APIError {
	var e Error
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return &APIError{Status: status, Message: e.Error, Field: e.Field}
	}
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	if msg == "" {
		msg = strings.ToLower(http.StatusText(status))
	}
	return &APIError{Status: status, Message: msg}
}

// transportError says, for a connection failure, where the daemon was
// expected and how to point the client elsewhere.
func (c *Client) transportError(err error) error {
	var ne net.Error
	timeout := errors.As(err, &ne) && ne.Timeout()
	switch {
	case c.socket != "" && errors.Is(err, syscall.EACCES):
		return fmt.Errorf("permission denied on the daemon's socket %s: ask an admin to add you to its group (%w)", c.socket, ErrForbidden)
	case c.socket != "" && (errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)):
		return fmt.Errorf("%w: the daemon is not running at %s (is borad started? set --socket or BORA_SOCKET)", ErrUnreachable, c.socket)
	case c.server != "" && !timeout && isDialError(err):
		return fmt.Errorf("%w: cannot reach the bora server at %s (set --server or BORA_SERVER): %v", ErrUnreachable, c.server, err)
	case timeout:
		return fmt.Errorf("the daemon did not answer within %s: %w", c.timeout, err)
	}
	return err
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
