package scheduler

import (
	"strings"
	"testing"
	"time"
)

// TestCatchUp: on node1 (enactment and shutdown 10 s), the advance
// reservation Y (2 VMs, 20 min) at 600 s would prepare over [600, 610),
// run over [610, 1810) and shut down over [1810, 1820). The scheduler last
// ran at 580 s (no later time is known); it catches up at 927 s: the
// daemon was down 347 s = 5m47s
// and Y starts 327 s = 5m27s late.
//
//   - With node1 free after it, Y keeps its full 20 min: prepare over
//     [927, 937), run over [937, 2137), shutdown to 2147 s (00:35:47).
//   - With the advance reservation Z on node1 from 1900 s, Y's plan must
//     end by 1900 s: its run is 1900 - 927 - 10 - 10 = 953 s = 15m53s,
//     over [937, 1890), shutdown to 1900 s (00:31:40), where Z starts.
//     Its planned end was 1820 s: it gets 80 s more than that.
//   - When the daemon is known to have been up until 700 s (it committed
//     then), it was down 927 - 700 = 227 s = 3m47s.
func TestCatchUp(t *testing.T) {
	for _, c := range []struct {
		name   string
		z      bool
		lastUp time.Time
		detail string
		want   []string
	}{
		{"room for all", false, time.Time{},
			"daemon was down 5m47s; starts 5m27s after its planned start and keeps its full 20m0s, to 2030-01-01 00:35:47",
			[]string{"+927.000 start 1 [0 0]", "+937.000 run 1 [0 0]", "+2137.000 shutdown 1 [0 0]", "+2147.000 done 1 [0 0]"}},
		{"until Z", true, time.Time{},
			"daemon was down 5m47s; starts 5m27s after its planned start and runs 15m53s of its 20m0s, to 2030-01-01 00:31:40: its hosts are reserved from then",
			[]string{"+927.000 start 1 [0 0]", "+937.000 run 1 [0 0]", "+1890.000 shutdown 1 [0 0]", "+1900.000 done 1 [0 0]",
				"+1900.000 start 2 [0 0]", "+1910.000 run 2 [0 0]", "+2210.000 shutdown 2 [0 0]", "+2220.000 done 2 [0 0]"}},
		{"known up until 700 s", false, at(700),
			"daemon was down 3m47s; starts 5m27s after its planned start and keeps its full 20m0s, to 2030-01-01 00:35:47",
			[]string{"+927.000 start 1 [0 0]", "+937.000 run 1 [0 0]", "+2137.000 shutdown 1 [0 0]", "+2147.000 done 1 [0 0]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := node1(t)
			y, _ := s.Submit(t0, twoCores("Y", AdvanceReservation, 10*time.Minute, 20*time.Minute))
			if c.z {
				if z, _ := s.Submit(t0, twoCores("Z", AdvanceReservation, 1900*time.Second, 5*time.Minute)); z.State != Scheduled {
					t.Fatalf("Z: %s %s", z.State, z.Detail)
				}
			}
			s.Advance(at(580))
			changes := s.CatchUp(c.lastUp, at(927))
			if len(changes) != 1 || changes[0].Lease != y.ID || changes[0].Reason != ReasonStartedLate || changes[0].Detail != c.detail {
				t.Fatalf("changes %+v\nwant one for Y: %s", changes, c.detail)
			}
			if e := y.History[len(y.History)-1]; e.Reason != ReasonStartedLate || e.Detail != c.detail || !e.At.Equal(at(927)) {
				t.Errorf("Y's history ends with %+v", e)
			}
			log := render(nil, s.Advance(at(927)))
			log = play(s, at(10000), log)
			if strings.Join(log, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("actions:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(c.want, "\n"))
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCatchUpDeadline: Y as in TestCatchUp but a deadline lease, ready at
// 600 s with its deadline at 2120 s (35m20s), planned over [600, 1820).
// Catching up at 927 s, its full length would end at 2147 s, after its
// deadline: it runs until the deadline, 2120 - 927 - 10 - 10 = 1173 s =
// 19m33s, over [937, 2110), shutdown to 2120 s.
func TestCatchUpDeadline(t *testing.T) {
	s := node1(t)
	req := twoCores("Y", Deadline, 10*time.Minute, 20*time.Minute)
	req.Deadline = 2120 * time.Second
	y, _ := s.Submit(t0, req)
	if y.State != Scheduled || !y.PlannedStart().Equal(at(600)) {
		t.Fatalf("Y: %s from %v", y.State, y.PlannedStart().Sub(t0))
	}
	s.Advance(at(580))
	changes := s.CatchUp(time.Time{}, at(927))
	const detail = "daemon was down 5m47s; starts 5m27s after its planned start and runs 19m33s of its 20m0s, to 2030-01-01 00:35:20: its deadline"
	if len(changes) != 1 || changes[0].Detail != detail {
		t.Fatalf("changes %+v\nwant: %s", changes, detail)
	}
	log := strings.Join(play(s, at(10000), render(nil, s.Advance(at(927)))), "\n")
	want := strings.Join([]string{"+927.000 start 1 [0 0]", "+937.000 run 1 [0 0]", "+2110.000 shutdown 1 [0 0]", "+2120.000 done 1 [0 0]"}, "\n")
	if log != want {
		t.Fatalf("actions:\n%s\nwant:\n%s", log, want)
	}
}
