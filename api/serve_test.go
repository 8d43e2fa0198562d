package api

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve runs ts.Serve until the test ends and checks it stops cleanly.
func serve(t *testing.T, ts *testServer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Serve(ctx) }()
	select {
	case <-ts.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("serve: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the server is not ready after 5 s")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

func socketClient(t *testing.T, socket, token string) *Client {
	t.Helper()
	c, err := NewClient(ClientOptions{Socket: socket, Token: token, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUnixSocketPeerIdentity(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "run", "bora.sock")
	ts := newTestServer(t, ServerConfig{Socket: sock, SocketMode: 0o600})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Serve(ctx) }()
	<-ts.Ready()

	fi, err := os.Stat(sock)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v", fi.Mode(), err)
	}
	c := socketClient(t, sock, "")
	if _, err := c.CreateLease(context.Background(), LeaseRequest{VMs: 1, Duration: "1h"}); err != nil {
		t.Fatal(err)
	}
	got := ts.svc.caller()
	// The peer is this test process: its uid and user name; root is admin.
	if got.UID != os.Getuid() || got.User != me.Username || got.Admin != (os.Getuid() == 0) || got.External {
		t.Errorf("caller %+v, want uid %d user %s", got, os.Getuid(), me.Username)
	}
	// A token on the socket replaces the uid identity.
	if _, err := socketClient(t, sock, aliceToken).ListLeases(context.Background(), LeaseFilter{}); err != nil {
		t.Fatal(err)
	}
	if got := ts.svc.caller(); got.User != "alice" || got.UID != -1 {
		t.Errorf("caller with a token %+v", got)
	}
	// A bad token is refused, not downgraded to the uid identity.
	if _, err := socketClient(t, sock, "nope").Stats(context.Background()); !isAPIError(err, 401, "") {
		t.Errorf("bad token on the socket: %v", err)
	}
	// A second server on a live socket refuses to start.
	other := newTestServer(t, ServerConfig{Socket: sock})
	if err := other.Serve(context.Background()); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Errorf("second server: %v", err)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there: %v", err)
	}
	_, err = c.Stats(context.Background())
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), sock) || !strings.Contains(err.Error(), "BORA_SOCKET") {
		t.Errorf("after stop: %v", err)
	}
}

// A body over the limit sent through a real connection gets the 413, not
// a broken pipe: the server answers before the client has sent it all.
func TestTooLargeOverTheSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "bora.sock")
	ts := newTestServer(t, ServerConfig{Socket: sock})
	serve(t, ts)
	_, err := socketClient(t, sock, "").CreateLease(context.Background(),
		LeaseRequest{Name: strings.Repeat("x", 10<<20), VMs: 1, Duration: "1h"})
	if !isAPIError(err, 413, "") || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("got %v", err)
	}
	if calls := ts.svc.called(); len(calls) != 0 {
		t.Errorf("the service was called: %v", calls)
	}
}

func TestUnixSocketAdminsByName(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "bora.sock")
	ts := newTestServer(t, ServerConfig{Socket: sock, Admins: []string{me.Username}})
	serve(t, ts)
	if _, err := socketClient(t, sock, "").Stats(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ts.svc.caller(); !got.Admin {
		t.Errorf("caller %+v: not admin", got)
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "bora.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close() // a crash leaves the file behind
	ts := newTestServer(t, ServerConfig{Socket: sock})
	serve(t, ts)
	if err := socketClient(t, sock, "").Health(context.Background()); err != nil {
		t.Error(err)
	}
}

func TestSocketPathIsNotASocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bora.sock")
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, ServerConfig{Socket: path})
	if err := ts.Serve(context.Background()); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Error("the file was touched")
	}
}

func TestServeNeedsAnAddress(t *testing.T) {
	ts := newTestServer(t, ServerConfig{})
	if err := ts.Serve(context.Background()); err == nil {
		t.Error("no error")
	}
}

func TestTCPWithTLSAndTokens(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	ts := newTestServer(t, ServerConfig{TCP: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile})
	serve(t, ts)
	url := "https://" + ts.TCPAddr().String()
	client := func(token string) *Client {
		c, err := NewClient(ClientOptions{Server: url, Token: token, CACert: certFile, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	if _, err := client("").Stats(ctx); !isAPIError(err, 401, "") {
		t.Errorf("no token: %v", err)
	}
	if _, err := client("wrong").Stats(ctx); !isAPIError(err, 401, "") {
		t.Errorf("wrong token: %v", err)
	}
	if _, err := client(aliceToken).Stats(ctx); err != nil {
		t.Errorf("good token: %v", err)
	}
	if got := ts.svc.caller(); got.User != "alice" || got.UID != -1 || got.Admin {
		t.Errorf("caller %+v", got)
	}
	// /healthz needs no token.
	if err := client("").Health(ctx); err != nil {
		t.Errorf("health: %v", err)
	}
	// Without the CA the certificate is not trusted.
	c, err := NewClient(ClientOptions{Server: url, Token: aliceToken, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stats(ctx); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted certificate: %v", err)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "bora test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	write := func(path, typ string, b []byte) {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(certFile, "CERTIFICATE", der)
	write(keyFile, "EC PRIVATE KEY", kder)
	return certFile, keyFile
}
