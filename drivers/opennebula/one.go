package opennebula

// This file is the only one that calls the XML-RPC client (package oca,
// which mirrors goca's names and argument order) or reads its documents.
// Swapping goca in means rewriting these functions and the two
// conversions below; the rest of the driver sees only oneVM and oneHost
// (and OpenNebula's state numbers, kept in oca).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// Attributes bora writes into (and reads from) a VM's USER_TEMPLATE.
const (
	attrLease    = "BORA_LEASE"    // the user's lease request (vector)
	attrLeaseID  = "BORA_LEASE_ID" // the bora lease a VM was adopted into
	attrVMIndex  = "BORA_VM_INDEX" // its index in that lease
	attrRejected = "BORA_ERROR"    // why bora did not make a lease of it
	attrOneError = "ERROR"         // OpenNebula's last driver error
)

// oneVM is what the driver reads of a VM document.
type oneVM struct {
	ID    int
	UID   int
	Owner string
	Name  string
	State oca.State
	LCM   oca.LCMState
	// PREV_LCM_STATE is not read: oned sets it to LCM_STATE before every
	// save, so it never tells where the VM came from. The history does.
	Host   string // current placement ("" when never deployed)
	HostID int    // -1 when never deployed
	// Placed is the last history record (zero when never deployed);
	// Left is true when the record before it has ended (ETIME set): the
	// VM has left the host it was migrated from. Both need the whole
	// history, which one.vm.info gives.
	Placed placement
	Left   bool
	CPU    float64
	Memory int64 // MB
	STime  int64 // creation, Unix seconds
	Error  string
	// Lease is BORA_LEASE: Vector when written as a vector attribute,
	// Text when written as a single value; Has reports either.
	Lease struct {
		Has    bool
		Vector map[string]string
		Text   string
	}
	LeaseID  string // BORA_LEASE_ID, "" when not adopted
	Index    string // BORA_VM_INDEX
	Rejected string // BORA_ERROR
}

// placement is what the driver reads of the last history record: oned
// opens one when it accepts a deploy, migrate or resume call, with every
// time 0, and its life-cycle manager fills the times in as the work
// proceeds (LifeCycleActions.cc, LifeCycleStates.cc).
type placement struct {
	PETime int64 // the disk copy (prolog) to this host ended
	RSTime int64 // the VM started running on this host
}

// stateString is "STATE" or "ACTIVE/LCM".
func (v *oneVM) stateString() string {
	if v.State == oca.Active {
		return "ACTIVE/" + v.LCM.String()
	}
	return v.State.String()
}

func fromOCA(x *oca.VM) *oneVM {
	st, lcm := x.State()
	v := &oneVM{ID: x.ID, UID: x.UID, Owner: x.UName, Name: x.Name, State: st, LCM: lcm,
		HostID: -1, CPU: x.CPU(), Memory: x.Memory(), STime: x.STime}
	if h, ok := x.LastHistory(); ok {
		v.Host, v.HostID = h.Hostname, h.HID
		v.Placed = placement{PETime: h.PETime, RSTime: h.RSTime}
	}
	if n := len(x.HistoryRecords); n >= 2 {
		v.Left = x.HistoryRecords[n-2].ETime != 0
	}
	v.Error, _ = x.UserTemplate.Get(attrOneError)
	v.LeaseID, _ = x.UserTemplate.Get(attrLeaseID)
	v.Index, _ = x.UserTemplate.Get(attrVMIndex)
	v.Rejected, _ = x.UserTemplate.Get(attrRejected)
	for _, t := range []oca.Template{x.UserTemplate, x.Template} {
		if vec, ok := t.GetVector(attrLease); ok {
			v.Lease.Has = true
			v.Lease.Vector = map[string]string{}
			for _, p := range vec.Pairs {
				v.Lease.Vector[strings.ToUpper(p.Key)] = p.Value
			}
			break
		}
		if s, ok := t.Get(attrLease); ok {
			v.Lease.Has, v.Lease.Text = true, s
			break
		}
	}
	return v
}

// oneHost is what the driver reads of a host document.
type oneHost struct {
	ID     int
	Name   string
	State  oca.HostState
	CPU    int64 // MAX_CPU, hundredths of a core
	Memory int64 // MAX_MEM in MB
}

func hostFromOCA(h *oca.Host) oneHost {
	return oneHost{ID: h.ID, Name: h.Name, State: h.State(), CPU: h.Share.MaxCPU, Memory: h.Share.MaxMem / 1024}
}

// one is the driver's connection to oned.
type one struct {
	client *oca.Client
	ctl    *oca.Controller
}

func dial(endpoint string, cr oca.Credentials) *one {
	c := oca.NewClient(oca.OneConfig{Credentials: cr, Endpoint: endpoint}, &http.Client{})
	return &one{client: c, ctl: oca.NewController(c)}
}

func (o *one) close() { o.client.CloseIdleConnections() }

func (o *one) vmInfo(ctx context.Context, id int) (*oneVM, error) {
	x, err := o.ctl.VM(id).InfoContext(ctx, false)
	if err != nil {
		return nil, err
	}
	return fromOCA(x), nil
}

// vms lists every user's VMs in state (a State, or oca.PoolStateNotDone)
// with their full templates.
func (o *one) vms(ctx context.Context, state int) ([]*oneVM, error) {
	pool, err := o.ctl.VMs().InfoExtendedContext(ctx, oca.PoolWhoAll, -1, -1, state)
	if err != nil {
		return nil, err
	}
	out := make([]*oneVM, len(pool.VMs))
	for i := range pool.VMs {
		out[i] = fromOCA(&pool.VMs[i])
	}
	return out, nil
}

func (o *one) deploy(ctx context.Context, id, hostID, ds int) error {
	return o.ctl.VM(id).DeployContext(ctx, hostID, false, ds)
}

func (o *one) action(ctx context.Context, id int, action string) error {
	return o.ctl.VM(id).ActionContext(ctx, action)
}

func (o *one) migrate(ctx context.Context, id, hostID int, live bool, ds int) error {
	return o.ctl.VM(id).MigrateContext(ctx, hostID, live, false, ds, oca.MigrateSave)
}

// annotate merges attributes into a VM's USER_TEMPLATE.
func (o *one) annotate(ctx context.Context, id int, attrs map[string]string) error {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var t oca.Template
	for _, k := range keys {
		t.Set(k, attrs[k])
	}
	text, err := t.Text()
	if err != nil {
		return err
	}
	return o.ctl.VM(id).UpdateContext(ctx, text, oca.Merge)
}

func (o *one) hosts(ctx context.Context) ([]oneHost, error) {
	pool, err := o.ctl.Hosts().InfoContext(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]oneHost, len(pool.Hosts))
	for i := range pool.Hosts {
		out[i] = hostFromOCA(&pool.Hosts[i])
	}
	return out, nil
}

func (o *one) host(ctx context.Context, id int) (oneHost, error) {
	h, err := o.ctl.Host(id).InfoContext(ctx, false)
	if err != nil {
		return oneHost{}, err
	}
	return hostFromOCA(h), nil
}

func (o *one) hostStatus(ctx context.Context, id, status int) error {
	return o.ctl.Host(id).StatusContext(ctx, status)
}

// leaseRef reads the adoption attributes; ok is false when the VM was not
// adopted (or they do not parse).
func (v *oneVM) leaseRef() (lease uint64, index int, ok bool) {
	if v.LeaseID == "" {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(strings.TrimSpace(v.LeaseID), 10, 64)
	i, err2 := strconv.Atoi(strings.TrimSpace(v.Index))
	if err1 != nil || err2 != nil || i < 0 {
		return 0, 0, false
	}
	return l, i, true
}

func adoptAttrs(lease uint64, index int) map[string]string {
	return map[string]string{attrLeaseID: fmt.Sprint(lease), attrVMIndex: fmt.Sprint(index)}
}

// isNoExists reports oned's NO_EXISTS answer.
func isNoExists(err error) bool { return err != nil && errors.Is(err, oca.ErrNoExists) }
