package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bora-sched/bora/config"
)

// startBorad runs a real daemon (fake driver, real clock) with two hosts
// of one core and api.private_data on, its API on a unix socket; alice
// and the admin have the tokens of the other CLI tests, bob his own.
func startBorad(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	c := config.Default()
	c.Daemon.Store = filepath.Join(dir, "bora.db")
	c.API.Socket = filepath.Join(dir, "bora.sock")
	c.API.PrivateData = true
	c.API.Tokens = []config.Token{{Token: aliceToken, User: "alice"}, {Token: "bob-0123456789abcdef", User: "bob"},
		{Token: adminToken, User: "ops", Admin: true}}
	c.Jobs = config.Jobs{}
	c.Hosts = []config.HostSpec{{Name: "h0", CPU: 1, Memory: 1024}, {Name: "h1", CPU: 1, Memory: 1024}}
	return startRealDaemon(t, c).socket
}

// TestPrivateDataInTheCLI: with api.private_data on, alice's host list
// counts bob's lease as busy and her chart draws it with the busy mark,
// without its id; the admin sees its id.
func TestPrivateDataInTheCLI(t *testing.T) {
	d := &daemon{socket: startBorad(t)}
	bob := as("bob-0123456789abcdef")
	d.bora(t, as(aliceToken), "", "lease", "create", "--name", "mine", "--duration", "2h", "--start", "now").check(t, exitOK)
	d.bora(t, bob, "", "lease", "create", "--name", "secret", "--duration", "2h", "--start", "now").check(t, exitOK)

	r := d.bora(t, as(aliceToken), "", "host", "list")
	r.check(t, exitOK, "1 busy")
	if strings.Count(r.stdout, "1 busy") != 1 || !strings.Contains(r.stdout, "  1\n") {
		t.Errorf("alice's host list: want her lease 1 on one host and 1 busy on the other:\n%s", r.stdout)
	}
	r = d.bora(t, as(aliceToken), "", "schedule", "--width", "40")
	r.check(t, exitOK, "= busy (another user's lease)", "mine")
	if strings.Contains(r.stdout, "secret") || strings.Contains(r.stdout, "bob") {
		t.Errorf("alice's chart names bob's lease:\n%s", r.stdout)
	}
	d.bora(t, as(aliceToken), "", "lease", "show", "2").check(t, exitNotFound)
	r = d.bora(t, root, "", "host", "list")
	r.check(t, exitOK)
	if strings.Contains(r.stdout, "busy") {
		t.Errorf("the admin's host list hides leases:\n%s", r.stdout)
	}
}
