package workload

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/bora-sched/bora/scheduler"
)

// The writers: bora's own format (docs/formats.md §5) in JSON or YAML, and
// SWF (docs/formats.md §1). What ReadJSON and ReadYAML read back is what
// was written; ReadSWF reads back what SWF can carry.

// boraLeaseOut is one lease as written, fields in the order of
// docs/formats.md §5; times and lengths in seconds.
type boraLeaseOut struct {
	Name         string `json:"name"`
	User         string `json:"user,omitempty"`
	Arrival      number `json:"arrival"`
	Kind         string `json:"kind"`
	Start        number `json:"start,omitempty"`
	Duration     number `json:"duration"`
	RealDuration number `json:"real_duration,omitempty"`
	Deadline     number `json:"deadline,omitempty"`
	VMs          int    `json:"vms"`
	CPU          number `json:"cpu"`
	Memory       int64  `json:"memory"`
	Image        string `json:"image,omitempty"`
	Class        string `json:"class"`
	Origin       string `json:"origin"`
}

// number is a value written bare when it is a plain number ("3600",
// "0.5") and as a string otherwise ("1.5s").
type number string

// MarshalJSON writes n bare or quoted.
func (n number) MarshalJSON() ([]byte, error) {
	if _, err := strconv.ParseFloat(string(n), 64); err == nil && isDecimal(string(n)) {
		return []byte(n), nil
	}
	return json.Marshal(string(n))
}

// timeText writes a time or length in seconds: "3600", or "1.5" when it
// is not a whole number of seconds (exact to the nanosecond: the readers
// take it back unchanged for times below 2^53 ns, 104 days).
func timeText(d time.Duration) number {
	sec, frac := d/time.Second, d%time.Second
	if frac == 0 {
		return number(strconv.FormatInt(int64(sec), 10))
	}
	sign := ""
	if d < 0 {
		sign, sec, frac = "-", -sec, -frac
	}
	return number(strings.TrimRight(fmt.Sprintf("%s%d.%09d", sign, sec, frac), "0"))
}

func leaseOut(r scheduler.Request) boraLeaseOut {
	o := boraLeaseOut{Name: r.Name, User: r.User, Arrival: timeText(r.Arrival), Kind: string(r.Kind),
		Duration: timeText(r.Duration), VMs: r.VMs, CPU: number(strconv.FormatFloat(float64(r.CPU)/100, 'f', -1, 64)),
		Memory: r.Memory, Image: r.Image, Class: string(r.Class), Origin: string(r.Origin)}
	if r.Start != 0 && r.Kind != scheduler.Immediate {
		o.Start = timeText(r.Start)
	}
	if r.Real != 0 {
		o.RealDuration = timeText(r.Real)
	}
	if r.Deadline != 0 {
		o.Deadline = timeText(r.Deadline)
	}
	return o
}

// WriteJSON writes requests in bora's format: {"leases": [...]}, one
// lease a line, every field that ReadJSON would otherwise default given.
func WriteJSON(w io.Writer, reqs []scheduler.Request) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\"leases\": [")
	for i, r := range reqs {
		b, err := json.Marshal(leaseOut(r))
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// WriteYAML writes requests in bora's format as YAML: a "leases" list of
// one flow map a lease. header lines, when given, come first as comments.
func WriteYAML(w io.Writer, reqs []scheduler.Request, header ...string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	if len(reqs) == 0 {
		bw.WriteString("leases: []\n")
		return bw.Flush()
	}
	bw.WriteString("leases:\n")
	for _, r := range reqs {
		// JSON's quoted strings are YAML double-quoted scalars, and a
		// JSON object is a YAML flow map.
		b, err := json.Marshal(leaseOut(r))
		if err != nil {
			return err
		}
		bw.WriteString("  - ")
		bw.Write(b)
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// WriteSWF writes requests as an SWF trace, one job a line:
// field 1 the job number (the request's name when it is a whole number,
// else its 1-based index), 2 the arrival, 4 the real run time, 5 and 8
// the VMs, 9 the requested duration, 10 the memory per VM in KB, 11
// status 1; the rest -1. Times are rounded to the second. SWF has no
// kind, class, origin, start or deadline: ReadSWF reads the jobs back as
// best-effort leases. header lines, when given, come first as ';'
// comments.
func WriteSWF(w io.Writer, reqs []scheduler.Request, header ...string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "; %s\n", h)
	}
	secs := func(d time.Duration) int64 { return int64(d.Round(time.Second) / time.Second) }
	for i, r := range reqs {
		num := strconv.Itoa(i + 1)
		if n, err := strconv.ParseUint(strings.TrimSpace(r.Name), 10, 62); err == nil {
			num = strconv.FormatUint(n, 10)
		}
		fmt.Fprintf(bw, "%s %d -1 %d %d -1 -1 %d %d %d 1 -1 -1 -1 -1 -1 -1 -1\n",
			num, secs(r.Arrival), secs(r.RealDuration()), r.VMs, r.VMs, secs(r.Duration), r.Memory*1024)
	}
	return bw.Flush()
}
