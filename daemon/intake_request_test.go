package daemon

import (
	"reflect"
	"testing"

	"github.com/bora-sched/bora/drivers/opennebula"
)

// TestLeaseRequestCopiesEveryField: a pending OpenNebula lease becomes an
// API request field by field. Every field of opennebula.Request is set to
// a distinct value; the API request must carry each one under the same
// name, so a field added to one side only fails here.
func TestLeaseRequestCopiesEveryField(t *testing.T) {
	in := opennebula.Request{Name: "job", VMs: 3, CPU: 0.5, Memory: 512, Start: "+1h", Duration: "2h0m0s",
		Deadline: "+5h", Class: "migratable", Origin: "external"}
	out := reflect.ValueOf(leaseRequest(in))
	v := reflect.ValueOf(in)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if v.Field(i).IsZero() {
			t.Fatalf("the test sets no %s", name)
		}
		got := out.FieldByName(name)
		if !got.IsValid() || !reflect.DeepEqual(got.Interface(), v.Field(i).Interface()) {
			t.Errorf("%s: api request has %v, want %v", name, got, v.Field(i))
		}
	}
}
