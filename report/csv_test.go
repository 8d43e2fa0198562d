package report

import (
	"bytes"
	"testing"
)

const csvHeaderLine = "id,name,kind,class,origin,vms,state,submit_s,start_s,end_s,hosts,preemptions,overhead_s,reason,requested_s,real_s\n"

func TestWriteCSV(t *testing.T) {
	tests := []struct {
		name   string
		report *Report
		want   string
	}{
		{"hand report", handReport("a"), csvHeaderLine +
			// The name holds a comma, so it is quoted; hosts joined by ';'.
			"1,\"job, one\",best-effort,cancellable,local,2,done,0,600,7200,0;1,1,120,,3600,3000.5\n" +
			// Rejected: empty start, end and hosts.
			"2,,best-effort,cancellable,external,1,rejected,30,,,,0,0,no capacity,1800,1800\n"},
		{"no leases", &Report{}, csvHeaderLine},
		{"fractions keep their digits", &Report{Leases: []Lease{{ID: 3, SubmitS: 0.125, StartS: ptr(1e-3), EndS: ptr(1234567.5), Hosts: []int{5}}}},
			csvHeaderLine + "3,,,,,0,,0.125,0.001,1234567.5,5,0,0,,0,0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteCSV(&buf, tt.report); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
