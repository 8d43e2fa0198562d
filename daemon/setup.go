package daemon

import (
	"os"

	"github.com/sirupsen/logrus"

	"github.com/bora-sched/bora/api"
	"github.com/bora-sched/bora/config"
)

// NewLogger is the daemon's logger, as the config says.
func NewLogger(c config.Daemon) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(os.Stderr)
	if c.LogFormat == "json" {
		l.SetFormatter(&logrus.JSONFormatter{})
	} else {
		l.SetFormatter(&logrus.TextFormatter{FullTimestamp: true})
	}
	if lvl, err := logrus.ParseLevel(c.LogLevel); err == nil {
		l.SetLevel(lvl)
	}
	return l
}

// NewAPIServer builds the HTTP API over the daemon, as the config says.
func NewAPIServer(d *Daemon, cfg config.Config, log *logrus.Logger) (*api.Server, error) {
	a := cfg.API
	mode, err := a.Mode()
	if err != nil {
		return nil, err
	}
	sc := api.ServerConfig{Socket: a.Socket, SocketMode: mode, SocketGroup: a.SocketGroup, TCP: a.TCP,
		TLSCert: a.TLSCert, TLSKey: a.TLSKey, InsecureTCP: a.InsecureTCP, Admins: a.Admins, MaxBody: a.MaxBody,
		Now: d.Now}
	for _, t := range a.Tokens {
		sc.Tokens = append(sc.Tokens, api.Token{Token: t.Token, User: t.User, Admin: t.Admin, External: t.External})
	}
	return api.NewServer(sc, d, d.Registry(), log.WithField("component", "api"))
}

// Reload applies a new configuration: the log level and format at once,
// and the scheduler's policies by restoring the scheduler under the new
// config (its leases and plans carry over). Settings that need a restart
// (store, listeners, driver, clock) are logged and left as they are.
func (d *Daemon) Reload(next config.Config) {
	d.post(func(t *tx) {
		log := d.log.WithField("component", "reload")
		nl := NewLogger(next.Daemon)
		d.lg.SetLevel(nl.Level)
		d.lg.SetFormatter(nl.Formatter)
		if next.Daemon.Store != d.cfg.Daemon.Store || next.API.Socket != d.cfg.API.Socket ||
			next.API.TCP != d.cfg.API.TCP || next.Driver.Name != d.cfg.Driver.Name || next.Daemon.Clock != d.cfg.Daemon.Clock {
			log.Warn("store, listeners, driver and clock changes need a restart: kept as they are")
		}
		if next.Admission != d.cfg.Admission {
			log.Warn("admission changes need a restart: kept as they are") // admission.go builds the stage at start
		}
		if err := d.rebuildScheduler(next); err != nil {
			log.WithError(err).Error("reload refused: the running scheduler configuration is unchanged")
			return
		}
		d.cfg.Scheduler, d.cfg.Jobs, d.cfg.Daemon.OpTimeout, d.cfg.Daemon.OpRetries =
			next.Scheduler, next.Jobs, next.Daemon.OpTimeout, next.Daemon.OpRetries
		d.cfg.Daemon.LogLevel, d.cfg.Daemon.LogFormat = next.Daemon.LogLevel, next.Daemon.LogFormat
		d.cfg.API.PrivateData = next.API.PrivateData
		d.exec.setLimits(opLimits{timeout: next.Daemon.OpTimeout, retries: next.Daemon.OpRetries, grace: next.Daemon.ShutdownGrace})
		t.mutated = true
		log.Info("configuration reloaded")
	})
}
