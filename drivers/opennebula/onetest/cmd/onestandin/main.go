// Command onestandin runs the oned stand-in (package onetest) on a TCP
// address, for trying borad's OpenNebula driver without OpenNebula:
//
//	onestandin -listen 127.0.0.1:2633 -hosts node1:800:16384,node2:800:16384 -delay 2s
//
// It answers XML-RPC at http://ADDR/RPC2 as oneadmin:opennebula (see
// -user, -password); VMs are created with one.vm.allocate, e.g. by
// OpenNebula's own `onevm create --hold` pointed at it with
// ONE_XMLRPC=http://ADDR/RPC2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bora-sched/bora/drivers/opennebula/onetest"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:2633", "address to listen on")
	user := flag.String("user", "oneadmin", "oneadmin's user name")
	password := flag.String("password", "opennebula", "oneadmin's password")
	hosts := flag.String("hosts", "node1:800:16384", "hosts as name:cpu-hundredths:memory-MB, comma-separated")
	delay := flag.Duration("delay", time.Second, "how long each working VM state lasts")
	flag.Parse()

	d := onetest.Delays{Prolog: *delay, Boot: *delay, Save: *delay, Restore: *delay, Migrate: *delay,
		Shutdown: *delay, ShutdownTimeout: 30 * *delay, Monitor: *delay}
	s := onetest.New(onetest.Options{User: *user, Password: *password, Delays: d})
	defer s.Close()
	if err := addHosts(s, *hosts); err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: *listen, Handler: s, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	log.Printf("oned stand-in answering at http://%s/RPC2", *listen)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func addHosts(s *onetest.Server, spec string) error {
	for _, h := range strings.Split(spec, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		f := strings.Split(h, ":")
		if len(f) != 3 {
			return fmt.Errorf("-hosts: %q: want name:cpu:memory", h)
		}
		cpu, err1 := strconv.ParseInt(f[1], 10, 64)
		mem, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || cpu <= 0 || mem <= 0 {
			return fmt.Errorf("-hosts: %q: cpu and memory must be positive integers", h)
		}
		s.AddHost(f[0], cpu, mem)
	}
	return nil
}
