package gateway

import (
	"context"
	"errors"
	"os"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
)

// NewServer is the api server that serves g on the configured TCP
// address, with TLS and the gateway's users' tokens.
func NewServer(g *Gateway, log *logrus.Entry) (*api.Server, error) {
	c := g.cfg
	sc := api.ServerConfig{TCP: c.Listen, TLSCert: c.TLSCert, TLSKey: c.TLSKey, InsecureTCP: c.InsecureTCP, Now: g.now}
	for _, t := range c.Tokens {
		sc.Tokens = append(sc.Tokens, api.Token{Token: t.Token, User: t.User, Admin: t.Admin})
	}
	return api.NewServer(sc, g, nil, log)
}

// NewLogger is the gateway's logger, at the configured level and format,
// on stderr.
func NewLogger(c Config) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(os.Stderr)
	if lv, err := logrus.ParseLevel(c.LogLevel); err == nil {
		l.SetLevel(lv)
	}
	if c.LogFormat == "json" {
		l.SetFormatter(&logrus.JSONFormatter{})
	}
	return l
}

// Serve runs the gateway with its configuration c until ctx ends: it
// opens the map, serves the API and polls the clusters. ready, when not
// nil, is called once the API listens.
func Serve(ctx context.Context, c Config, log *logrus.Logger, ready func(*api.Server)) error {
	entry := logrus.NewEntry(log)
	g, err := New(Options{Config: c, Log: entry})
	if err != nil {
		return err
	}
	defer g.Close()
	srv, err := NewServer(g, entry)
	if err != nil {
		return err
	}
	g.Poll(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx) }()
	if ready != nil {
		go func() {
			select {
			case <-srv.Ready():
				ready(srv)
			case <-ctx.Done():
			}
		}()
	}
	runErr := make(chan error, 1)
	go func() { runErr <- g.Run(ctx) }()
	select {
	case err = <-errc: // the listener failed
		cancel()
		<-runErr
	case err = <-runErr:
		cancel()
		if serr := <-errc; serr != nil {
			err = errors.Join(err, serr)
		}
	}
	return err
}
