package onetest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// Delays are how long the VM states that stand for driver work last.
type Delays struct {
	Prolog  time.Duration // PROLOG, PROLOG_MIGRATE*, EPILOG: copying disks
	Boot    time.Duration // BOOT*, BOOT_MIGRATE: starting the guest
	Save    time.Duration // SAVE_SUSPEND, SAVE_MIGRATE: writing the memory image
	Restore time.Duration // BOOT_SUSPENDED: reading it back
	Migrate time.Duration // MIGRATE: a live migration
	// Shutdown is how long an ACPI shutdown takes when the guest obeys
	// (SHUTDOWN), and how long a hard one takes.
	Shutdown time.Duration
	// ShutdownTimeout is how long oned waits for a guest that ignores
	// ACPI before it gives up and puts the VM back to RUNNING.
	ShutdownTimeout time.Duration
	Monitor         time.Duration // INIT -> MONITORED after a host is enabled
	// Dispatch is how long oned's life-cycle manager takes to act on a
	// migrate or resume request after answering it: meanwhile the VM
	// shows the new history record and its old state. 0 acts at once.
	Dispatch time.Duration
}

// DefaultDelays are short, for tests: 20 ms a state, 2 s for an ignored
// ACPI shutdown.
func DefaultDelays() Delays {
	d := 20 * time.Millisecond
	return Delays{Prolog: d, Boot: d, Save: d, Restore: d, Migrate: d, Shutdown: d,
		ShutdownTimeout: 2 * time.Second, Monitor: d}
}

// Options configure a Server.
type Options struct {
	// User and Password are oneadmin's credentials (default
	// "oneadmin" / "opennebula").
	User, Password string
	// Version is what one.system.version answers (default "6.10.0").
	Version string
	// Delays; the zero value means DefaultDelays.
	Delays Delays
}

// Call is one XML-RPC call the server received (the session left out).
type Call struct {
	Method string
	Args   []interface{}
	Code   oca.OneErrCode // the answer's error code; -1 for an XML-RPC fault
}

// String renders the call as `one.vm.deploy(5, 0, false, -1)`.
func (c Call) String() string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		if s, ok := a.(string); ok {
			parts[i] = fmt.Sprintf("%q", s)
		} else {
			parts[i] = fmt.Sprint(a)
		}
	}
	return c.Method + "(" + strings.Join(parts, ", ") + ")"
}

type user struct {
	id       int
	name     string
	password string
	gid      int
	gname    string
	admin    bool
}

// Server is a stand-in for oned's XML-RPC interface at /RPC2. It is an
// http.Handler (use it with httptest.NewServer). Safe for concurrent use.
type Server struct {
	mu      sync.Mutex
	version string
	delays  Delays
	users   []*user
	hosts   map[int]*host
	vms     map[int]*vm
	dss     map[int]string
	nextVM  int
	nextHst int
	calls   []Call
	fails   map[failKey][]string
	rejects map[string][]reject
	timers  map[*time.Timer]bool
	// callDelay is how long calls of a method wait before they are
	// served (SetCallDelay); delayed counts those waiting, by method.
	callDelay map[string]time.Duration
	delayed   map[string]int
	closed    bool
	now       func() time.Time
}

type reject struct {
	code oca.OneErrCode
	msg  string
}

// New returns a server with oneadmin, system datastore 0 and no hosts or
// VMs.
func New(o Options) *Server {
	if o.User == "" {
		o.User = "oneadmin"
	}
	if o.Password == "" {
		o.Password = "opennebula"
	}
	if o.Version == "" {
		o.Version = "6.10.0"
	}
	if o.Delays == (Delays{}) {
		o.Delays = DefaultDelays()
	}
	return &Server{
		version: o.Version,
		delays:  o.Delays,
		users:   []*user{{id: 0, name: o.User, password: o.Password, gid: 0, gname: "oneadmin", admin: true}},
		hosts:   map[int]*host{},
		vms:     map[int]*vm{},
		dss:     map[int]string{0: "system", 1: "default", 2: "files"},
		fails:   map[failKey][]string{},
		rejects: map[string][]reject{},
		timers:  map[*time.Timer]bool{},
		now:     time.Now,

		callDelay: map[string]time.Duration{},
		delayed:   map[string]int{},
	}
}

// Close stops every pending state change.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for t := range s.timers {
		t.Stop()
	}
	s.timers = map[*time.Timer]bool{}
}

// after runs f under the lock once d has passed (unless closed).
func (s *Server) after(d time.Duration, f func()) {
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.timers, t)
		if !s.closed {
			f()
		}
	})
	s.timers[t] = true
}

// oneErr is a failure answer [false, msg, code, resp_id, 0].
type oneErr struct {
	code   oca.OneErrCode
	msg    string
	respID int
}

// The object names oned uses in its messages.
const (
	objVM   = "virtual machine"
	objHost = "host"
	objDS   = "datastore"
)

func errNoExists(method, obj string, id int) *oneErr {
	return &oneErr{oca.OneNoExistsError, fmt.Sprintf("[%s] Error getting %s [%d].", method, obj, id), id}
}

func errAction(method, msg string) *oneErr {
	return &oneErr{oca.OneActionError, fmt.Sprintf("[%s] %s", method, msg), -1}
}

func errCode(method string, code oca.OneErrCode, msg string) *oneErr {
	return &oneErr{code, fmt.Sprintf("[%s] %s", method, msg), -1}
}

// call is one request being served; p holds every parameter, the
// session at 0, as xmlrpc-c's paramList does.
type call struct {
	method string
	user   *user
	p      params
}

type handler func(s *Server, c *call) (interface{}, *oneErr, error)

var handlers = map[string]handler{
	"one.vm.info":             (*Server).vmInfo,
	"one.vm.allocate":         (*Server).vmAllocate,
	"one.vm.deploy":           (*Server).vmDeploy,
	"one.vm.action":           (*Server).vmAction,
	"one.vm.migrate":          (*Server).vmMigrate,
	"one.vm.update":           (*Server).vmUpdate,
	"one.vmpool.info":         (*Server).vmPoolInfo,
	"one.vmpool.infoextended": (*Server).vmPoolInfoExtended,
	"one.hostpool.info":       (*Server).hostPoolInfo,
	"one.host.info":           (*Server).hostInfo,
	"one.host.status":         (*Server).hostStatus,
	"one.system.version":      (*Server).systemVersion,
}

// Methods lists the XML-RPC methods the stand-in answers.
func Methods() []string {
	var ms []string
	for m := range handlers {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	return ms
}

// ServeHTTP answers XML-RPC calls POSTed to /RPC2.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/RPC2" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	method, args, err := decodeCall(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		_ = encodeFault(w, &fault{faultParse, "XML-RPC request does not parse: " + err.Error()})
		return
	}
	if !s.delay(r, method) {
		return // the client gave up during the delay: never served
	}
	values, f := s.serve(method, args)
	if f != nil {
		_ = encodeFault(w, f)
		return
	}
	_ = encodeResponse(w, values...)
}

// delay holds a call of method for its delay (SetCallDelay), outside the
// lock: other calls are served meanwhile. It reports false when the
// client gave up first.
func (s *Server) delay(r *http.Request, method string) bool {
	s.mu.Lock()
	d := s.callDelay[method]
	if d > 0 {
		s.delayed[method]++
	}
	s.mu.Unlock()
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
	s.mu.Lock()
	s.delayed[method]--
	s.mu.Unlock()
	return r.Context().Err() == nil
}

// serve runs one call under the lock and records it.
func (s *Server) serve(method string, args []interface{}) ([]interface{}, *fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := Call{Method: method}
	if len(args) > 1 {
		rec.Args = append([]interface{}(nil), args[1:]...)
	}
	values, f := s.dispatch(method, args)
	switch {
	case f != nil:
		rec.Code = -1
	case values[0] == false:
		rec.Code = oca.OneErrCode(values[2].(int))
	}
	s.calls = append(s.calls, rec)
	return values, f
}

func (s *Server) dispatch(method string, args []interface{}) ([]interface{}, *fault) {
	h, ok := handlers[method]
	if !ok {
		return nil, &fault{faultNoSuchMethod, "Unknown method name"}
	}
	p := params(args)
	session, err := p.str(0)
	if err != nil {
		return nil, err.(*fault)
	}
	u := s.authenticate(session)
	if u == nil {
		e := errCode(method, oca.OneAuthenticationError, "User couldn't be authenticated, aborting call.")
		return failure(e), nil
	}
	if rs := s.rejects[method]; len(rs) > 0 {
		s.rejects[method] = rs[1:]
		return failure(errCode(method, rs[0].code, rs[0].msg)), nil
	}
	val, oe, err := h(s, &call{method: method, user: u, p: p})
	if err != nil {
		var f *fault
		if errors.As(err, &f) {
			return nil, f
		}
		return failure(errCode(method, oca.OneInternalError, err.Error())), nil
	}
	if oe != nil {
		return failure(oe), nil
	}
	return []interface{}{true, val, 0}, nil
}

func failure(e *oneErr) []interface{} {
	return []interface{}{false, e.msg, int(e.code), e.respID, i8(0)}
}

func (s *Server) authenticate(session string) *user {
	name, pass, ok := strings.Cut(session, ":")
	if !ok {
		return nil
	}
	for _, u := range s.users {
		if u.name == name && u.password == pass {
			return u
		}
	}
	return nil
}

func (s *Server) userByName(name string) *user {
	for _, u := range s.users {
		if u.name == name {
			return u
		}
	}
	return nil
}

// notAdmin is oned's answer to a non-admin calling an admin operation.
func notAdmin(c *call, obj string, id int) *oneErr {
	return &oneErr{oca.OneAuthorizationError,
		fmt.Sprintf("[%s] User [%d] : Not authorized to perform ADMIN %s [%d].", c.method, c.user.id, obj, id), -1}
}

func (s *Server) systemVersion(c *call) (interface{}, *oneErr, error) {
	return s.version, nil, nil
}
