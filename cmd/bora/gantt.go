package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bora-sched/bora/api"
)

// The slot table as a Gantt chart in the terminal: time across, one row
// per host, or several (lanes) when leases share it at the same time.
// A lease's run is drawn with its own letter and its id written in the
// bar; the operations around it with their own marks.

// opMarks are the marks of the reservations that are not a run.
var opMarks = map[string]byte{"prepare": '>', "suspend": 'v', "resume": '^', "migrate": '~', "shutdown": 'x', "stop": '#',
	api.BusyKind: '='}

// opOrder lists the marks in the legend.
var opOrder = []string{"prepare", "suspend", "resume", "migrate", "shutdown", "stop"}

// leaseGlyphs draw runs: letters only (the ids are written in digits),
// without v and x (marks).
const leaseGlyphs = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuwyz"

const nowMark = ':'

// lane is one row of the chart: intervals of one host that do not overlap.
type lane struct {
	host  string
	first bool // the host's first lane, which shows its name
	ivs   []api.Interval
}

// layoutLanes puts each host's intervals in the window into lanes: an
// interval goes to the lane its lease used last if free, else to the
// first free lane, else to a new one. Hosts keep the schedule's order;
// hosts only the intervals name come after, sorted.
func layoutLanes(s api.Schedule) []lane {
	byHost := map[string][]api.Interval{}
	for _, iv := range s.Intervals {
		if iv.End.After(s.From) && iv.Start.Before(s.To) && !iv.End.Before(iv.Start) {
			byHost[iv.Host] = append(byHost[iv.Host], iv)
		}
	}
	hosts := append([]string(nil), s.Hosts...)
	known := map[string]bool{}
	for _, h := range hosts {
		known[h] = true
	}
	var extra []string
	for h := range byHost {
		if !known[h] {
			extra = append(extra, h)
		}
	}
	sort.Strings(extra)
	var out []lane
	for _, h := range append(hosts, extra...) {
		out = append(out, hostLanes(h, byHost[h])...)
	}
	return out
}

func hostLanes(host string, ivs []api.Interval) []lane {
	sort.SliceStable(ivs, func(i, j int) bool {
		if !ivs[i].Start.Equal(ivs[j].Start) {
			return ivs[i].Start.Before(ivs[j].Start)
		}
		return ivs[i].Lease < ivs[j].Lease
	})
	lanes := []lane{{host: host, first: true}}
	free := func(l lane, iv api.Interval) bool {
		return len(l.ivs) == 0 || !l.ivs[len(l.ivs)-1].End.After(iv.Start)
	}
	for _, iv := range ivs {
		pick := -1
		for i, l := range lanes {
			if free(l, iv) && len(l.ivs) > 0 && l.ivs[len(l.ivs)-1].Lease == iv.Lease {
				pick = i
				break
			}
		}
		for i := 0; pick < 0 && i < len(lanes); i++ {
			if free(lanes[i], iv) {
				pick = i
			}
		}
		if pick < 0 {
			lanes = append(lanes, lane{host: host})
			pick = len(lanes) - 1
		}
		lanes[pick].ivs = append(lanes[pick].ivs, iv)
	}
	return lanes
}

// glyphs gives each lease in the schedule its letter, by id.
func glyphs(s api.Schedule) (map[uint64]byte, []uint64) {
	seen := map[uint64]bool{}
	var ids []uint64
	for _, iv := range s.Intervals {
		if iv.Kind != api.BusyKind && !seen[iv.Lease] {
			seen[iv.Lease] = true
			ids = append(ids, iv.Lease)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	g := map[uint64]byte{}
	for i, id := range ids {
		g[id] = leaseGlyphs[i%len(leaseGlyphs)]
	}
	return g, ids
}

// grid maps times to columns.
type grid struct {
	from time.Time
	step time.Duration
	cols int
}

func (g grid) col(t time.Time) int {
	c := int(t.Sub(g.from) / g.step)
	return min(max(c, 0), g.cols-1)
}

// span is the columns [first, last] an interval covers: at least one.
func (g grid) span(start, end time.Time) (int, int) {
	first := g.col(start)
	last := int(math.Ceil(float64(end.Sub(g.from))/float64(g.step))) - 1
	last = min(max(last, first), g.cols-1)
	return first, last
}

// drawLane draws one lane's cells.
func drawLane(g grid, l lane, glyph map[uint64]byte, now time.Time, showNow bool) string {
	cells := []byte(strings.Repeat(" ", g.cols))
	owner := make([]int64, g.cols) // lease id + 1 of a run cell, 0 if none
	for _, iv := range l.ivs {
		first, last := g.span(iv.Start, iv.End)
		mark, isOp := opMarks[iv.Kind]
		if !isOp && iv.Kind != "vm" {
			mark, isOp = '?', true
		}
		for c := first; c <= last; c++ {
			switch {
			case isOp:
				cells[c], owner[c] = mark, 0
			case owner[c] != 0 || cells[c] == ' ':
				cells[c], owner[c] = glyph[iv.Lease], int64(iv.Lease)+1
			}
		}
	}
	// Write each run's id in it when it fits with a letter either side.
	for c := 0; c < g.cols; {
		if owner[c] == 0 {
			c++
			continue
		}
		end := c
		for end < g.cols && owner[end] == owner[c] {
			end++
		}
		id := strconv.FormatInt(owner[c]-1, 10)
		if end-c >= len(id)+2 {
			copy(cells[c+1:], id)
		}
		c = end
	}
	if showNow && cells[g.col(now)] == ' ' {
		cells[g.col(now)] = nowMark
	}
	return string(cells)
}

// columnSteps are the round durations a column may stand for.
var columnSteps = func() []time.Duration {
	var out []time.Duration
	for _, s := range []int{1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30} {
		out = append(out, time.Duration(s)*time.Second)
	}
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 10, 12, 15, 20, 30} {
		out = append(out, time.Duration(m*float64(time.Minute)))
	}
	for _, h := range []float64{1, 1.5, 2, 3, 4, 6, 8, 12, 24, 48, 72, 168} {
		out = append(out, time.Duration(h*float64(time.Hour)))
	}
	return out
}()

// newGrid spreads [from, to) over at most width columns, each a round
// duration when one fits.
func newGrid(from, to time.Time, width int) grid {
	raw := (to.Sub(from) + time.Duration(width) - 1) / time.Duration(width)
	step := max(raw, 1)
	for _, st := range columnSteps {
		if st >= raw {
			step = st
			break
		}
	}
	cols := int((to.Sub(from) + step - 1) / step)
	return grid{from: from, step: step, cols: max(cols, 1)}
}

// tickSteps are the candidate distances between labelled ticks.
var tickSteps = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 28 * 24 * time.Hour}

// tickLayout is the format of the tick labels of a window span long.
func tickLayout(span time.Duration) string {
	switch {
	case span > 7*24*time.Hour:
		return "01-02"
	case span > 24*time.Hour:
		return "01-02 15:04"
	}
	return "15:04"
}

// ticks are round times in [from, to), at least minGap apart, counted
// from local midnight of from's day.
func ticks(from, to time.Time, minGap time.Duration, loc *time.Location) []time.Time {
	step := tickSteps[len(tickSteps)-1]
	for _, st := range tickSteps {
		if st >= minGap {
			step = st
			break
		}
	}
	lf := from.In(loc)
	midnight := time.Date(lf.Year(), lf.Month(), lf.Day(), 0, 0, 0, 0, loc)
	k := (from.Sub(midnight) + step - 1) / step
	var out []time.Time
	for t := midnight.Add(k * step); t.Before(to); t = t.Add(step) {
		out = append(out, t)
	}
	return out
}

// axis returns the tick line and the label line.
func axis(g grid, loc *time.Location) (tickLine, labels string) {
	end := g.from.Add(time.Duration(g.cols) * g.step)
	layout := tickLayout(end.Sub(g.from))
	tk := []byte(strings.Repeat("-", g.cols))
	lb := []byte(strings.Repeat(" ", g.cols+len(layout)))
	nextFree := 0
	for _, t := range ticks(g.from, end, g.step*time.Duration(len(layout)+2), loc) {
		c := g.col(t)
		tk[c] = '+'
		if c >= nextFree {
			copy(lb[c:], t.In(loc).Format(layout))
			nextFree = c + len(layout) + 1
		}
	}
	return string(tk), strings.TrimRight(string(lb), " ")
}

// writeGantt draws s in width columns of time; leases (may be empty)
// names the leases in the legend.
func writeGantt(w io.Writer, s api.Schedule, leases map[uint64]api.Lease, width int, loc *time.Location) error {
	if !s.To.After(s.From) {
		return fmt.Errorf("the schedule's window is empty (%s .. %s)", s.From, s.To)
	}
	g := newGrid(s.From, s.To, width)
	lanes := layoutLanes(s)
	glyph, ids := glyphs(s)
	nameW := len("HOST")
	for _, l := range lanes {
		nameW = max(nameW, min(len(l.host), 20))
	}
	showNow := !s.Now.Before(s.From) && s.Now.Before(s.To)
	fmt.Fprintf(w, "%s .. %s, one column = %s", s.From.In(loc).Format("2006-01-02 15:04:05"),
		s.To.In(loc).Format("2006-01-02 15:04:05"), human(g.step))
	if showNow {
		fmt.Fprintf(w, ", now %s (%c)", s.Now.In(loc).Format("15:04:05"), nowMark)
	}
	fmt.Fprintln(w)
	ticks, labels := axis(g, loc)
	pad := strings.Repeat(" ", nameW+2)
	fmt.Fprintf(w, "%s%s\n%-*s +%s+\n", pad, labels, nameW, "HOST", ticks)
	for _, l := range lanes {
		name := ""
		if l.first {
			name = printable(l.host)
			if len(name) > 20 {
				name = name[:19] + "~"
			}
		}
		fmt.Fprintf(w, "%-*s |%s|\n", nameW, name, drawLane(g, l, glyph, s.Now, showNow))
	}
	fmt.Fprintf(w, "%s+%s+\n", pad[:len(pad)-1], ticks)
	writeLegend(w, glyph, ids, leases, hasBusy(s))
	return nil
}

// hasBusy reports intervals of other users' leases hidden by
// api.private_data.
func hasBusy(s api.Schedule) bool {
	for _, iv := range s.Intervals {
		if iv.Kind == api.BusyKind {
			return true
		}
	}
	return false
}

func writeLegend(w io.Writer, glyph map[uint64]byte, ids []uint64, leases map[uint64]api.Lease, busy bool) {
	switch {
	case len(ids) == 0 && !busy:
		fmt.Fprintln(w, "\nno reservations in this window")
	case len(ids) > 0:
		fmt.Fprintln(w, "\nLEASES")
		tw := newTable(w)
		for _, id := range ids {
			l, ok := leases[id]
			if !ok {
				row(tw, "  "+string(glyph[id]), id)
				continue
			}
			row(tw, "  "+string(glyph[id]), id, l.User, dash(l.Name), l.Kind, l.State)
		}
		_ = tw.Flush()
		if len(ids) > len(leaseGlyphs) {
			fmt.Fprintf(w, "  (more than %d leases: letters repeat; the ids in the bars tell them apart)\n", len(leaseGlyphs))
		}
	}
	var marks []string
	for _, k := range opOrder {
		marks = append(marks, fmt.Sprintf("%c %s", opMarks[k], k))
	}
	if busy {
		marks = append(marks, fmt.Sprintf("%c busy (another user's lease)", opMarks[api.BusyKind]))
	}
	fmt.Fprintf(w, "MARKS  %s  %c now\n", strings.Join(marks, "  "), nowMark)
}
