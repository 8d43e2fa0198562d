package oca_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
	"github.com/bora-sched/bora/drivers/opennebula/onetest"
)

const password = "pw-for-tests"

// setup runs a stand-in oned with one host (node1, 4 cores, 8 GB), a
// user alice and a VM of hers on HOLD (id 0), and returns a controller
// logged in as oneadmin.
func setup(t *testing.T) (*onetest.Server, *oca.Controller, string) {
	t.Helper()
	one := onetest.New(onetest.Options{Password: password})
	one.AddHost("node1", 400, 8192)
	one.AddUser("alice", "alice-pw")
	_, err := one.AddVM("alice", `NAME="web"
CPU=0.5
VCPU=2
MEMORY=1024
BORA_LEASE=[ ID="job", START="now" ]
DESCRIPTION="a test VM"`, true)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(one)
	t.Cleanup(func() { srv.Close(); one.Close() })
	endpoint := srv.URL + "/RPC2"
	return one, oca.NewController(oca.NewDefaultClient(oca.NewConfig("oneadmin", password, endpoint))), endpoint
}

func TestVMDocument(t *testing.T) {
	one, ctl, _ := setup(t)
	ctx := context.Background()
	vm, err := ctl.VM(0).InfoContext(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if st, lcm := vm.State(); vm.ID != 0 || vm.Name != "web" || vm.UName != "alice" || vm.UID != 1 ||
		st != oca.Hold || lcm != oca.LcmInit || vm.CPU() != 0.5 || vm.Memory() != 1024 {
		t.Errorf("VM document: %+v", vm)
	}
	if v, _ := vm.Template.Get("VCPU"); v != "2" {
		t.Errorf("TEMPLATE/VCPU = %q", v)
	}
	// Attributes oned does not know stay in USER_TEMPLATE.
	lease, ok := vm.UserTemplate.GetVector("BORA_LEASE")
	if id, _ := lease.Get("ID"); !ok || id != "job" {
		t.Errorf("USER_TEMPLATE/BORA_LEASE = %+v", lease)
	}
	if _, ok := vm.Template.GetVector("BORA_LEASE"); ok {
		t.Error("BORA_LEASE in TEMPLATE")
	}

	if err := ctl.VM(0).DeployContext(ctx, 0, true, -1); err != nil {
		t.Fatal(err)
	}
	if err := one.Await(0, oca.Active, oca.Running, time.Second); err != nil {
		t.Fatal(err)
	}
	vm, _ = ctl.VM(0).InfoContext(ctx, false)
	if h, ok := vm.LastHistory(); !ok || h.Hostname != "node1" || h.HID != 0 || h.DSID != 0 || vm.StateString() != "ACTIVE/RUNNING" {
		t.Errorf("after deploy: %s, history %+v", vm.StateString(), vm.HistoryRecords)
	}
	// PREV_LCM_STATE is not where RUNNING came from: oned copies
	// LCM_STATE into it before every save.
	if oca.LCMState(vm.PrevLCMStateRaw) != oca.Running {
		t.Errorf("PREV_LCM_STATE = %v, want RUNNING (as LCM_STATE)", oca.LCMState(vm.PrevLCMStateRaw))
	}

	host, err := ctl.Host(0).InfoContext(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	// 4 cores = 400, 8 GB = 8388608 KB; the VM allocates 50 and 1048576.
	if s := host.Share; host.Name != "node1" || host.State() != oca.HostMonitored || s.MaxCPU != 400 ||
		s.TotalMem != 8388608 || s.CPUUsage != 50 || s.MemUsage != 1048576 || s.RunningVMs != 1 ||
		len(host.VMs) != 1 {
		t.Errorf("host document: %+v", host)
	}
}

func TestPoolFilters(t *testing.T) {
	one, ctl, _ := setup(t)
	ctx := context.Background()
	if _, err := one.AddVM("oneadmin", "CPU=1\nMEMORY=128", false); err != nil { // 1, PENDING
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []int
		want []int
	}{
		{"all users, HOLD", []int{oca.PoolWhoAll, -1, -1, int(oca.Hold)}, []int{0}},
		{"all users, PENDING", []int{oca.PoolWhoAll, -1, -1, int(oca.Pending)}, []int{1}},
		{"all users, not DONE", []int{oca.PoolWhoAll, -1, -1, oca.PoolStateNotDone}, []int{1, 0}},
		{"mine (oneadmin's)", []int{oca.PoolWhoMine}, []int{1}},
		{"alice's (uid 1)", []int{1, -1, -1}, []int{0}},
		{"id range 1..", []int{oca.PoolWhoAll, 1, -1}, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool, err := ctl.VMs().InfoExtendedContext(ctx, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, v := range pool.VMs {
				got = append(got, v.ID)
			}
			if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// The short listing leaves out the user's own attributes.
	pool, err := ctl.VMs().InfoContext(ctx, oca.PoolWhoAll, -1, -1, int(oca.Hold))
	if err != nil || len(pool.VMs) != 1 {
		t.Fatalf("%v %v", pool, err)
	}
	if pool.VMs[0].UserTemplate.Has("BORA_LEASE") {
		t.Error("one.vmpool.info has BORA_LEASE; only infoextended should")
	}
	if _, err := ctl.VMs().InfoContext(ctx, 1, 2); err == nil {
		t.Error("two filter arguments accepted")
	}
}

func TestUpdate(t *testing.T) {
	_, ctl, _ := setup(t)
	ctx := context.Background()
	if err := ctl.VM(0).UpdateContext(ctx, "BORA_LEASE_ID=\"7\"\nBORA_VM_INDEX=\"0\"", oca.Merge); err != nil {
		t.Fatal(err)
	}
	vm, _ := ctl.VM(0).InfoContext(ctx, false)
	if id, _ := vm.UserTemplate.Get("BORA_LEASE_ID"); id != "7" || !vm.UserTemplate.Has("DESCRIPTION") {
		t.Errorf("after merge: %v", vm.UserTemplate.Keys())
	}
	if err := ctl.VM(0).UpdateContext(ctx, "<TEMPLATE><ONLY>this</ONLY></TEMPLATE>", oca.Replace); err != nil {
		t.Fatal(err)
	}
	vm, _ = ctl.VM(0).InfoContext(ctx, false)
	if keys := vm.UserTemplate.Keys(); len(keys) != 1 || keys[0] != "ONLY" {
		t.Errorf("after replace: %v", keys)
	}
}

func TestOnedErrors(t *testing.T) {
	one, ctl, endpoint := setup(t)
	ctx := context.Background()
	alice := oca.NewController(oca.NewDefaultClient(oca.NewConfig("alice", "alice-pw", endpoint)))
	wrong := oca.NewController(oca.NewDefaultClient(oca.NewConfig("oneadmin", "wrong", endpoint)))
	for _, tc := range []struct {
		name     string
		call     func() error
		sentinel error
		code     oca.OneErrCode
		msg      string
	}{
		{"wrong password", func() error { _, err := wrong.VM(0).InfoContext(ctx, false); return err },
			oca.ErrAuthentication, oca.OneAuthenticationError,
			"[one.vm.info] User couldn't be authenticated, aborting call."},
		{"unknown VM", func() error { return ctl.VM(42).ActionContext(ctx, "suspend") },
			oca.ErrNoExists, oca.OneNoExistsError, "[one.vm.action] Error getting virtual machine [42]."},
		{"unknown host", func() error { return ctl.VM(0).DeployContext(ctx, 9, false, -1) },
			oca.ErrNoExists, oca.OneNoExistsError, "[one.vm.deploy] Error getting host [9]."},
		{"suspend on HOLD", func() error { return ctl.VM(0).ActionContext(ctx, "suspend") },
			oca.ErrAction, oca.OneActionError,
			`[one.vm.action] Error performing action "suspend": This action is not available for state HOLD`},
		{"unknown action", func() error { return ctl.VM(0).ActionContext(ctx, "fly") },
			oca.ErrAction, oca.OneActionError, `[one.vm.action] Action "fly" is not supported`},
		{"migrate on HOLD", func() error { return ctl.VM(0).MigrateContext(ctx, 0, true, false, -1, 0) },
			oca.ErrAction, oca.OneActionError, "[one.vm.migrate] Migrate action is not available for state HOLD"},
		{"deploy by a user", func() error { return alice.VM(0).DeployContext(ctx, 0, false, -1) },
			oca.ErrAuthorization, oca.OneAuthorizationError,
			"[one.vm.deploy] User [1] : Not authorized to perform ADMIN VM [0]."},
		{"bad host status", func() error { return ctl.Host(0).StatusContext(ctx, 7) },
			oca.ErrInternal, oca.OneInternalError, "[one.host.status] Wrong status code"},
		{"bad pool filter", func() error { _, err := ctl.VMs().InfoContext(ctx, -9); return err },
			oca.ErrAPI, oca.OneXMLRPCAPIError, "[one.vmpool.info] Incorrect filter_flag, must be >= -4."},
		// An HA zone that lost its majority answers REPLICATION (0x10000).
		{"replication", func() error {
			one.RejectNext("one.vm.action", oca.OneReplicationError, "Cannot replicate log record")
			return ctl.VM(0).ActionContext(ctx, "release")
		}, oca.ErrReplication, oca.OneReplicationError, "[one.vm.action] Cannot replicate log record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var re *oca.ResponseError
			if !errors.As(err, &re) || !errors.Is(err, tc.sentinel) || re.Code != tc.code || re.Msg != tc.msg {
				t.Errorf("error %v, want [%s] %q", err, tc.code, tc.msg)
			}
			if want := "[" + tc.code.String() + "]"; !strings.Contains(err.Error(), want) || strings.Contains(want, "0x") {
				t.Errorf("error %v does not name the code as oned does (%s)", err, want)
			}
		})
	}
	// A deploy that is refused leaves the VM where it was: deploy again.
	if err := ctl.VM(0).DeployContext(ctx, 0, false, -1); err != nil {
		t.Fatal(err)
	}
	err := ctl.VM(0).DeployContext(ctx, 0, false, -1)
	if !errors.Is(err, oca.ErrAction) || !strings.Contains(err.Error(), "Deploy action is not available for state PROLOG") {
		t.Errorf("second deploy: %v", err)
	}
}

func TestClientErrors(t *testing.T) {
	_, ctl, endpoint := setup(t)
	ctx := context.Background()
	c := oca.NewDefaultClient(oca.NewConfig("oneadmin", password, endpoint))
	var ce *oca.ClientError

	if _, err := c.CallContext(ctx, "one.vm.teleport", 0); !errors.As(err, &ce) || ce.Code != oca.ClientRespXMLRPCFault ||
		!strings.Contains(err.Error(), "Unknown method name") {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := c.CallContext(ctx, "one.vm.info", "zero"); !errors.As(err, &ce) || ce.Code != oca.ClientRespXMLRPCFault {
		t.Errorf("a string for an int: %v", err)
	}
	if _, err := c.CallContext(ctx, "one.vm.action", "suspend"); !errors.As(err, &ce) || ce.Code != oca.ClientRespXMLRPCFault {
		t.Errorf("a missing parameter: %v", err)
	}
	if r, err := c.CallContext(ctx, "one.system.version"); err != nil || r.Body() != "6.10.0" {
		t.Errorf("one.system.version: %v %v", r, err)
	}

	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "proxy error", http.StatusBadGateway)
	}))
	defer broken.Close()
	bc := oca.NewController(oca.NewDefaultClient(oca.NewConfig("oneadmin", password, broken.URL)))
	if _, err := bc.Hosts().InfoContext(ctx); !errors.As(err, &ce) || ce.Code != oca.ClientRespHTTP {
		t.Errorf("HTTP 502: %v", err)
	}
	gone := oca.NewController(oca.NewDefaultClient(oca.NewConfig("oneadmin", password, "http://127.0.0.1:1/RPC2")))
	if _, err := gone.Hosts().InfoContext(ctx); !errors.As(err, &ce) || ce.Code != oca.ClientReqHTTP {
		t.Errorf("nothing listening: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ctl.Hosts().InfoContext(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
