package api

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"
)

// DefaultSocketMode is the socket's permissions when ServerConfig.SocketMode
// is 0: the owner and the socket's group may call the API.
const DefaultSocketMode os.FileMode = 0o660

// shutdownGrace is how long Serve lets requests in flight finish once its
// context ends.
const shutdownGrace = 10 * time.Second

// ServerConfig says where the server listens and whom it lets in.
type ServerConfig struct {
	// Socket is the unix socket's path ("" = none). A stale socket file
	// left by a crash is replaced; a live one (another daemon) is an error.
	Socket string
	// SocketMode is the socket's permissions (0 = DefaultSocketMode).
	SocketMode os.FileMode
	// SocketGroup, if set, is the group (name or gid) the socket is
	// given, so its members may call the API.
	SocketGroup string
	// TCP is the TCP address to listen on, e.g. "127.0.0.1:8443" ("" =
	// off). Callers on TCP must send a bearer token.
	TCP string
	// TLSCert and TLSKey are PEM files, required when TCP is set unless
	// InsecureTCP.
	TLSCert, TLSKey string
	// InsecureTCP serves plain HTTP on TCP: for tests only.
	InsecureTCP bool
	// Tokens are the bearer tokens accepted (on TCP, and on the socket
	// where they replace the peer's uid identity).
	Tokens []Token
	// Admins are the user names that have the admin role on the socket;
	// root (uid 0) always has it.
	Admins []string
	// MaxBody is the largest request body read (0 = DefaultMaxBody).
	MaxBody int64
	// Now reads the daemon's clock; it resolves relative times such as
	// ?from=-1h. nil = the wall clock. Empty ?from= and ?to= are passed
	// to the Service as zero times, and the Service picks the defaults.
	Now func() time.Time
}

// Server serves a Service over HTTP.
type Server struct {
	cfg     ServerConfig
	svc     Service
	reg     *prometheus.Registry
	log     *logrus.Entry
	mux     *http.ServeMux
	routes  map[string]bool // registered patterns
	tokens  *tokenSet
	admins  map[string]bool
	gid     int // of SocketGroup, -1 if none
	tlsConf *tls.Config
	metrics *metrics

	once    sync.Once
	ready   chan struct{}
	mu      sync.Mutex
	tcpAddr net.Addr
}

// NewServer checks cfg and builds a server for svc. It registers the
// server's collectors in reg (nil = a private registry) and logs to log
// (nil = nowhere). It returns an error for a bad config: TCP without a
// certificate, an unreadable certificate, an empty or duplicate token, an
// unknown socket group, or collectors already registered in reg.
func NewServer(cfg ServerConfig, svc Service, reg *prometheus.Registry, log *logrus.Entry) (*Server, error) {
	if svc == nil {
		return nil, errors.New("api: no service")
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = logrus.NewEntry(l)
	}
	if cfg.SocketMode == 0 {
		cfg.SocketMode = DefaultSocketMode
	}
	if cfg.MaxBody < 0 {
		return nil, fmt.Errorf("api: max body %d: must not be negative", cfg.MaxBody)
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, svc: svc, reg: reg, log: log.WithField("component", "api"),
		admins: map[string]bool{}, gid: -1, ready: make(chan struct{})}
	for _, a := range cfg.Admins {
		s.admins[a] = true
	}
	var err error
	if s.tokens, err = newTokenSet(cfg.Tokens); err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	if err := s.configureTCP(); err != nil {
		return nil, err
	}
	if cfg.SocketGroup != "" {
		if s.gid, err = lookupGroup(cfg.SocketGroup); err != nil {
			return nil, fmt.Errorf("api: socket group: %w", err)
		}
	}
	if s.metrics, err = newMetrics(reg); err != nil {
		return nil, fmt.Errorf("api: registering metrics: %w", err)
	}
	s.buildMux()
	return s, nil
}

func (s *Server) configureTCP() error {
	if s.cfg.TCP == "" || s.cfg.InsecureTCP {
		return nil
	}
	if s.cfg.TLSCert == "" || s.cfg.TLSKey == "" {
		return fmt.Errorf("api: tcp %s: a TLS certificate and key are required", s.cfg.TCP)
	}
	cert, err := tls.LoadX509KeyPair(s.cfg.TLSCert, s.cfg.TLSKey)
	if err != nil {
		return fmt.Errorf("api: tls: %w", err)
	}
	s.tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return nil
}

func lookupGroup(name string) (int, error) {
	if gid, err := strconv.Atoi(name); err == nil {
		return gid, nil
	}
	g, err := user.LookupGroup(name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(g.Gid)
}

// Handler is the server's HTTP handler, for tests. Requests that reach it
// without going through Serve's listeners must carry a bearer token.
func (s *Server) Handler() http.Handler { return s }

// Ready is closed once Serve listens.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// TCPAddr is the TCP address Serve listens on (nil before Ready or
// without TCP); useful with port 0.
func (s *Server) TCPAddr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tcpAddr
}

// Serve listens on the socket and on TCP if configured and answers
// requests until ctx ends; then it lets requests in flight finish (for up
// to 10 s) and removes the socket. It returns nil after a stop asked by
// ctx, or the error that made a listener fail. Serve runs once per Server.
func (s *Server) Serve(ctx context.Context) error {
	err := errors.New("api: Serve called twice")
	s.once.Do(func() { err = s.serve(ctx) })
	return err
}

func (s *Server) serve(ctx context.Context) error {
	if s.cfg.Socket == "" && s.cfg.TCP == "" {
		return errors.New("api: no socket and no TCP address to listen on")
	}
	var lns []net.Listener
	if s.cfg.Socket != "" {
		l, err := s.listenSocket()
		if err != nil {
			return err
		}
		lns = append(lns, l)
	}
	if s.cfg.TCP != "" {
		l, err := s.listenTCP()
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			s.removeSocket()
			return err
		}
		lns = append(lns, l)
	}
	errLog := s.log.WriterLevel(logrus.WarnLevel)
	defer errLog.Close()
	srv := &http.Server{
		Handler:           s,
		ConnContext:       s.connContext,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(errLog, "", 0),
	}
	errc := make(chan error, len(lns))
	for _, l := range lns {
		go func() { errc <- srv.Serve(l) }()
	}
	s.log.WithFields(logrus.Fields{"socket": s.cfg.Socket, "tcp": addrString(s.TCPAddr())}).Info("api listening")
	close(s.ready)

	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		s.log.WithError(err).Error("api listener failed")
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		s.log.WithError(serr).Warn("api requests still running at shutdown: closing them")
		_ = srv.Close()
	}
	s.removeSocket()
	s.log.Info("api stopped")
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (s *Server) listenSocket() (net.Listener, error) {
	path := s.cfg.Socket
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("api: socket directory: %w", err)
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("api: listening on %s: %w", path, err)
	}
	fail := func(err error) (net.Listener, error) {
		_ = l.Close()
		return nil, err
	}
	if err := os.Chmod(path, s.cfg.SocketMode); err != nil {
		return fail(fmt.Errorf("api: socket mode: %w", err))
	}
	if s.gid >= 0 {
		if err := os.Chown(path, -1, s.gid); err != nil {
			return fail(fmt.Errorf("api: socket group %s: %w", s.cfg.SocketGroup, err))
		}
	}
	return l, nil
}

// removeStaleSocket removes a socket file nobody listens on (left by a
// crash). It refuses to touch a file that is not a socket, or a socket
// another process answers on.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("api: socket: %w", err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("api: socket: %s exists and is not a socket", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		_ = c.Close()
		return fmt.Errorf("api: socket: another process listens on %s (is borad already running?)", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("api: removing the stale socket: %w", err)
	}
	return nil
}

func (s *Server) removeSocket() {
	if s.cfg.Socket == "" {
		return
	}
	if err := os.Remove(s.cfg.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.WithError(err).Warn("cannot remove the socket")
	}
}

func (s *Server) listenTCP() (net.Listener, error) {
	l, err := net.Listen("tcp", s.cfg.TCP)
	if err != nil {
		return nil, fmt.Errorf("api: listening on %s: %w", s.cfg.TCP, err)
	}
	s.mu.Lock()
	s.tcpAddr = l.Addr()
	s.mu.Unlock()
	if s.tlsConf == nil {
		s.log.WithField("tcp", l.Addr().String()).Warn("api serves plain HTTP on TCP: tokens travel in clear")
		return l, nil
	}
	return tls.NewListener(l, s.tlsConf), nil
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}
