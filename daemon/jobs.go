package daemon

import (
	"context"
	"encoding/json"
	"time"

	"github.com/robfig/cron/v3"
)

// startJobs runs the periodic jobs on their cron schedules (wall clock):
// accounting snapshots into the store, compaction of the store, and
// snapshots of the store (checked copies beside it, for bora store
// restore).
func (d *Daemon) startJobs() func() {
	c := cron.New(cron.WithParser(cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)))
	log := d.log.WithField("component", "jobs")
	add := func(name, spec string, fn func()) {
		if spec == "" {
			return
		}
		if _, err := c.AddFunc(spec, fn); err != nil {
			log.WithError(err).WithField("job", name).Error("not scheduled")
		}
	}
	add("accounting", d.cfg.Jobs.Accounting, func() {
		if err := d.accounting(); err != nil {
			log.WithError(err).Warn("accounting snapshot")
		}
	})
	add("compaction", d.cfg.Jobs.Compaction, func() {
		if n, err := d.forget(d.cfg.Jobs.LeaseRetention); err != nil {
			log.WithError(err).Warn("dropping old leases")
		} else if n > 0 {
			log.WithField("leases", n).Info("dropped leases over for longer than jobs.lease_retention")
		}
		if err := d.store.Compact(); err != nil {
			log.WithError(err).Error("store compaction")
			return
		}
		log.Info("store compacted")
	})
	add("snapshot", d.cfg.Jobs.Snapshot, func() {
		path, err := d.store.Snapshot(time.Now(), d.cfg.Jobs.SnapshotKeep, checkSnapshot)
		if err != nil {
			log.WithError(err).Error("store snapshot")
			return
		}
		log.WithField("file", path).Info("store snapshot written")
	})
	c.Start()
	return func() { <-c.Stop().Done() }
}

// accounting stores a snapshot of the stats, and prunes old ones.
func (d *Daemon) accounting() error {
	st, err := d.stats(context.Background())
	if err != nil {
		return err
	}
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := d.store.AppendAccounting(st.Now, data); err != nil {
		return err
	}
	if r := d.cfg.Jobs.AccountingRetention; r > 0 {
		_, err = d.store.PruneAccounting(st.Now.Add(-r))
	}
	return err
}

// forget drops leases that ended more than retention ago, from the
// scheduler and (at the commit of the same pass) from the store.
func (d *Daemon) forget(retention time.Duration) (int, error) {
	if retention <= 0 {
		return 0, nil
	}
	v, err := d.call(context.Background(), func(t *tx) (any, error) {
		gone := d.sched.Forget(t.now.Add(-retention))
		gone = append(gone, d.forgetOver(t.now.Add(-retention))...) // finished.go
		d.forgotten = append(d.forgotten, gone...)
		for _, id := range gone {
			delete(d.errs, id)
		}
		t.mutated = true
		return len(gone), nil
	})
	if err != nil {
		return 0, err
	}
	return v.(int), nil
}
