package onetest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

func start(t *testing.T) (*Server, *oca.Controller, string) {
	t.Helper()
	s := New(Options{})
	s.AddHost("node1", 200, 2048)
	s.AddHost("node2", 200, 2048)
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	url := srv.URL + "/RPC2"
	return s, oca.NewController(oca.NewDefaultClient(oca.NewConfig("oneadmin", "opennebula", url))), url
}

func TestHTTP(t *testing.T) {
	_, _, url := start(t)
	for _, tc := range []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "/RPC2", "", http.StatusMethodNotAllowed, ""},
		{"POST", "/other", "", http.StatusNotFound, ""},
		{"POST", "/RPC2", "not xml", http.StatusOK, "<name>faultCode</name>"},
		{"POST", "/RPC2", "<methodCall><methodName>one.vm.info</methodName><params><param><value><int>x</int></value></param></params></methodCall>",
			http.StatusOK, "faultCode"},
		{"POST", "/RPC2", "<methodCall><methodName>one.system.version</methodName><params><param><value>oneadmin:opennebula</value></param></params></methodCall>",
			http.StatusOK, "<string>6.10.0</string>"},
	} {
		req, _ := http.NewRequest(tc.method, strings.TrimSuffix(url, "/RPC2")+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(b.String(), tc.contains) {
			t.Errorf("%s %s %q: %d %q", tc.method, tc.path, tc.body, resp.StatusCode, b.String())
		}
	}
}

func TestActionsAndTheirStates(t *testing.T) {
	s, ctl, _ := start(t)
	ctx := context.Background()
	id, err := s.AddVM("oneadmin", "CPU=1\nMEMORY=512", false)
	if err != nil {
		t.Fatal(err)
	}
	vm := ctl.VM(id)
	steps := []struct {
		call func() error
		want string // the state after it settled
		err  string // oned's answer, when it refuses
	}{
		{func() error { return vm.ActionContext(ctx, "release") }, "PENDING",
			`Error performing action "release": This action is not available for state PENDING`},
		{func() error { return vm.ActionContext(ctx, "hold") }, "HOLD", ""},
		{func() error { return vm.ActionContext(ctx, "release") }, "PENDING", ""},
		{func() error { return vm.DeployContext(ctx, 1, false, 7) }, "PENDING", "Error getting datastore [7]."},
		{func() error { return vm.DeployContext(ctx, 1, false, 0) }, "ACTIVE/RUNNING", ""},
		{func() error { return vm.MigrateContext(ctx, 1, true, false, -1, 0) }, "ACTIVE/RUNNING",
			"VM is already running on host [1] and datastore [0]"},
		{func() error { return vm.ActionContext(ctx, "poweroff") }, "POWEROFF", ""},
		{func() error { return vm.MigrateContext(ctx, 0, false, false, -1, 0) }, "POWEROFF", ""},
		{func() error { return vm.ActionContext(ctx, "resume") }, "ACTIVE/RUNNING", ""},
		{func() error { return vm.ActionContext(ctx, "stop") }, "ACTIVE/RUNNING", "does not model"},
		{func() error { return vm.ActionContext(ctx, "terminate") }, "DONE", ""},
		{func() error { return vm.ActionContext(ctx, "terminate-hard") }, "DONE", ""}, // DONE: nothing to do
	}
	for i, st := range steps {
		err := st.call()
		switch {
		case st.err == "" && err != nil:
			t.Fatalf("step %d: %v", i, err)
		case st.err != "" && (err == nil || !strings.Contains(err.Error(), st.err)):
			t.Fatalf("step %d: error %v, want %q", i, err, st.err)
		}
		deadline := time.Now().Add(time.Second)
		for {
			v, _ := vm.InfoContext(ctx, false)
			if v.StateString() == st.want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("step %d: %s, want %s", i, v.StateString(), st.want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	want := []string{"PENDING", "HOLD", "PENDING", "ACTIVE/PROLOG", "ACTIVE/BOOT", "ACTIVE/RUNNING",
		"ACTIVE/SHUTDOWN_POWEROFF", "POWEROFF", "ACTIVE/PROLOG_MIGRATE_POWEROFF", "POWEROFF",
		"ACTIVE/BOOT_POWEROFF", "ACTIVE/RUNNING", "ACTIVE/SHUTDOWN", "ACTIVE/EPILOG", "DONE"}
	if got := s.Trail(id); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("trail\n %v\nwant %v", got, want)
	}
	if got := s.Placements(id); strings.Join(got, " ") != "node2 node1" {
		t.Errorf("placements %v", got)
	}
}

func TestTerminateInAWorkingState(t *testing.T) {
	s, ctl, _ := start(t)
	ctx := context.Background()
	slow := DefaultDelays()
	slow.Prolog = time.Second
	s.SetDelays(slow)
	id, _ := s.AddVM("oneadmin", "CPU=1\nMEMORY=512", true)
	if err := ctl.VM(id).DeployContext(ctx, 0, false, -1); err != nil {
		t.Fatal(err)
	}
	err := ctl.VM(id).ActionContext(ctx, "terminate-hard")
	want := `[one.vm.action] Error performing action "terminate-hard": Could not terminate VM 0, wrong state PROLOG.`
	var re *oca.ResponseError
	if !errors.As(err, &re) || re.Code != oca.OneActionError || re.Msg != want {
		t.Errorf("terminate in PROLOG: %v, want %q", err, want)
	}
}

func TestCapacityEnforcement(t *testing.T) {
	s, ctl, _ := start(t)
	ctx := context.Background()
	big, _ := s.AddVM("oneadmin", "CPU=3\nMEMORY=512", true) // node1 has 2 cores
	if err := ctl.VM(big).DeployContext(ctx, 0, true, -1); err == nil || !strings.Contains(err.Error(), "not enough capacity") {
		t.Errorf("enforced deploy of 3 cores on 2: %v", err)
	}
	if err := ctl.VM(big).DeployContext(ctx, 0, false, -1); err != nil {
		t.Errorf("overcommitting deploy: %v", err)
	}
}

func TestCallsAreRecorded(t *testing.T) {
	s, ctl, _ := start(t)
	ctx := context.Background()
	_, _ = ctl.VM(3).InfoContext(ctx, false)
	_ = ctl.Host(1).StatusContext(ctx, oca.HostStatusDisabled)
	calls := s.Calls()
	if len(calls) != 2 || calls[0].String() != "one.vm.info(3, false)" || calls[0].Code != oca.OneNoExistsError ||
		calls[1].String() != "one.host.status(1, 1)" || calls[1].Code != oca.OneSuccess {
		t.Errorf("calls %+v", calls)
	}
	if got := s.CallStrings("one.vm.info"); len(got) != 1 {
		t.Errorf("CallStrings skipping one.vm.info: %v", got)
	}
	if s.HostState(1) != oca.HostDisabled {
		t.Errorf("host 1 is %v", s.HostState(1))
	}
	if len(Methods()) != 12 {
		t.Errorf("Methods() = %v", Methods())
	}
}

// FuzzDecodeCall: the request decoder never panics.
func FuzzDecodeCall(f *testing.F) {
	f.Add(`<methodCall><methodName>one.vm.info</methodName><params><param><value><string>a:b</string></value></param><param><value><i4>1</i4></value></param></params></methodCall>`)
	f.Add(`<methodCall><methodName>x</methodName><params><param><value><array><data><value><boolean>1</boolean></value></data></array></value></param><param><value><struct><member><name>n</name><value><double>1.5</double></value></member></struct></value></param></params></methodCall>`)
	s := New(Options{})
	f.Fuzz(func(t *testing.T, body string) {
		method, args, err := decodeCall(strings.NewReader(body))
		if err != nil {
			return
		}
		_, _ = s.serve(method, args)
	})
}

func TestColdMigrationOfARunningVM(t *testing.T) {
	s, ctl, _ := start(t)
	ctx := context.Background()
	id, _ := s.AddVM("oneadmin", "CPU=1\nMEMORY=512", true)
	if err := ctl.VM(id).DeployContext(ctx, 0, false, -1); err != nil {
		t.Fatal(err)
	}
	if err := s.Await(id, oca.Active, oca.Running, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := ctl.VM(id).MigrateContext(ctx, 1, false, false, -1, oca.MigrateSave); err != nil {
		t.Fatal(err)
	}
	if err := s.Await(id, oca.Active, oca.Running, time.Second); err != nil {
		t.Fatal(err)
	}
	want := "HOLD ACTIVE/PROLOG ACTIVE/BOOT ACTIVE/RUNNING ACTIVE/SAVE_MIGRATE ACTIVE/PROLOG_MIGRATE ACTIVE/BOOT_MIGRATE ACTIVE/RUNNING"
	if got := strings.Join(s.Trail(id), " "); got != want {
		t.Errorf("trail\n %s\nwant %s", got, want)
	}
	vm, _ := ctl.VM(id).InfoContext(ctx, false)
	if len(vm.HistoryRecords) != 2 || vm.HistoryRecords[0].Action != oca.ActionMigrate ||
		vm.HistoryRecords[0].ETime == 0 || vm.HistoryRecords[1].Hostname != "node2" {
		t.Errorf("history %+v", vm.HistoryRecords)
	}
}

// TestCallDelay: with one.vm.update delayed by an hour, an update waits
// (Delayed counts it) while other calls are answered; the update whose
// client gives up is never served: the VM's template is unchanged and
// the call is not recorded. Without a delay the update is served.
func TestCallDelay(t *testing.T) {
	s, ctl, _ := start(t)
	s.AddUser("carol", "pw")
	id, err := s.AddVM("carol", "CPU=1\nMEMORY=512", true)
	if err != nil {
		t.Fatal(err)
	}
	s.SetCallDelay("one.vm.update", time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctl.VM(id).UpdateContext(ctx, `NOTE="slow"`, oca.Merge) }()
	for deadline := time.Now().Add(10 * time.Second); s.Delayed("one.vm.update") != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the update never waited")
		}
	}
	if _, err := ctl.VM(id).InfoContext(context.Background(), false); err != nil {
		t.Fatalf("one.vm.info while the update waits: %v", err)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the update given up on succeeded")
	}
	for deadline := time.Now().Add(10 * time.Second); s.Delayed("one.vm.update") != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the update given up on still waits")
		}
	}
	if v, ok := s.UserTemplate(id).Get("NOTE"); ok {
		t.Errorf("NOTE = %q: the update given up on was served", v)
	}
	if calls := strings.Join(s.CallStrings("one.vm.info"), "\n"); strings.Contains(calls, "one.vm.update") {
		t.Errorf("calls recorded:\n%s", calls)
	}
	s.SetCallDelay("one.vm.update", 0)
	if err := ctl.VM(id).UpdateContext(context.Background(), `NOTE="fast"`, oca.Merge); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.UserTemplate(id).Get("NOTE"); v != "fast" {
		t.Errorf("NOTE = %q, want fast", v)
	}
}
