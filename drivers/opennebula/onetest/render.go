package onetest

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/bora-sched/bora/drivers/opennebula/oca"
)

// The documents follow OpenNebula's vm.xsd and host.xsd: numbers as
// text, template values in CDATA, as oned writes them.

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func cdata(s string) string {
	return "<![CDATA[" + strings.ReplaceAll(s, "]]>", "]]]]><![CDATA[>") + "]]>"
}

func writeTemplate(b *strings.Builder, name string, t oca.Template, keep func(string) bool) {
	fmt.Fprintf(b, "<%s>", name)
	for _, p := range t.Pairs {
		if keep == nil || keep(p.Key) {
			fmt.Fprintf(b, "<%s>%s</%s>", p.Key, cdata(p.Value), p.Key)
		}
	}
	for _, v := range t.Vectors {
		if keep != nil && !keep(v.Key) {
			continue
		}
		fmt.Fprintf(b, "<%s>", v.Key)
		for _, p := range v.Pairs {
			fmt.Fprintf(b, "<%s>%s</%s>", p.Key, cdata(p.Value), p.Key)
		}
		fmt.Fprintf(b, "</%s>", v.Key)
	}
	fmt.Fprintf(b, "</%s>", name)
}

// shortTemplate and shortUser are what one.vmpool.info keeps of the
// templates (the pool listing); one.vm.info and one.vmpool.infoextended
// give them whole.
var (
	shortTemplate = map[string]bool{"CPU": true, "VCPU": true, "MEMORY": true, "VMID": true,
		"AUTOMATIC_REQUIREMENTS": true, "GRAPHICS": true, "NIC": true, "DISK": true}
	shortUser = map[string]bool{"LABELS": true, "SCHED_RANK": true, "SCHED_REQUIREMENTS": true,
		"SCHED_MESSAGE": true, "ERROR": true, "HYPERVISOR": true}
)

func (s *Server) renderVM(v *vm, extended bool) string {
	var b strings.Builder
	b.WriteString("<VM>")
	fmt.Fprintf(&b, "<ID>%d</ID><UID>%d</UID><GID>%d</GID><UNAME>%s</UNAME><GNAME>%s</GNAME><NAME>%s</NAME>",
		v.id, v.uid, v.gid, esc(v.uname), esc(v.gname), esc(v.name))
	b.WriteString("<PERMISSIONS><OWNER_U>1</OWNER_U><OWNER_M>1</OWNER_M><OWNER_A>0</OWNER_A>" +
		"<GROUP_U>0</GROUP_U><GROUP_M>0</GROUP_M><GROUP_A>0</GROUP_A>" +
		"<OTHER_U>0</OTHER_U><OTHER_M>0</OTHER_M><OTHER_A>0</OTHER_A></PERMISSIONS>")
	deployID := ""
	if v.last() != nil {
		deployID = fmt.Sprintf("one-%d", v.id)
	}
	fmt.Fprintf(&b, "<LAST_POLL>0</LAST_POLL><STATE>%d</STATE><LCM_STATE>%d</LCM_STATE>"+
		"<PREV_STATE>%d</PREV_STATE><PREV_LCM_STATE>%d</PREV_LCM_STATE><RESCHED>0</RESCHED>"+
		"<STIME>%d</STIME><ETIME>%d</ETIME><DEPLOY_ID>%s</DEPLOY_ID>",
		v.state, v.lcm, v.state, v.lcm, v.stime, v.etime, deployID)
	b.WriteString("<MONITORING/>")
	var keepT, keepU func(string) bool
	if !extended {
		keepT = func(k string) bool { return shortTemplate[k] }
		keepU = func(k string) bool { return shortUser[k] }
	}
	writeTemplate(&b, "TEMPLATE", v.tmpl, keepT)
	writeTemplate(&b, "USER_TEMPLATE", v.user, keepU)
	hs := v.history
	if !extended && len(hs) > 1 {
		hs = hs[len(hs)-1:]
	}
	if len(hs) == 0 {
		b.WriteString("<HISTORY_RECORDS/>")
	} else {
		b.WriteString("<HISTORY_RECORDS>")
		for _, h := range hs {
			fmt.Fprintf(&b, "<HISTORY><OID>%d</OID><SEQ>%d</SEQ><HOSTNAME>%s</HOSTNAME><HID>%d</HID><CID>0</CID>"+
				"<STIME>%d</STIME><ETIME>%d</ETIME><VM_MAD>%s</VM_MAD><TM_MAD>%s</TM_MAD><DS_ID>%d</DS_ID>"+
				"<PSTIME>%d</PSTIME><PETIME>%d</PETIME><RSTIME>%d</RSTIME><RETIME>%d</RETIME>"+
				"<ESTIME>%d</ESTIME><EETIME>%d</EETIME><ACTION>%d</ACTION><UID>-1</UID><GID>-1</GID>"+
				"<REQUEST_ID>-1</REQUEST_ID></HISTORY>",
				v.id, h.seq, esc(h.hostname), h.hid, h.stime, h.etime, cdata("kvm"), cdata("shared"), h.ds,
				h.pstime, h.petime, h.rstime, h.retime, h.estime, h.eetime, h.action)
		}
		b.WriteString("</HISTORY_RECORDS>")
	}
	if extended {
		b.WriteString("<BACKUPS><BACKUP_CONFIG/><BACKUP_IDS/></BACKUPS>")
	}
	b.WriteString("</VM>")
	return b.String()
}

func (s *Server) renderHost(h *host) string {
	cpu, mem, vms := s.usage(h)
	maxCPU, maxMem := h.capacity()
	var b strings.Builder
	fmt.Fprintf(&b, "<HOST><ID>%d</ID><NAME>%s</NAME><STATE>%d</STATE><PREV_STATE>%d</PREV_STATE>"+
		"<IM_MAD>%s</IM_MAD><VM_MAD>%s</VM_MAD><CLUSTER_ID>0</CLUSTER_ID><CLUSTER>default</CLUSTER>",
		h.id, esc(h.name), h.state, h.prev, cdata("kvm"), cdata("kvm"))
	fmt.Fprintf(&b, "<HOST_SHARE><MEM_USAGE>%d</MEM_USAGE><CPU_USAGE>%d</CPU_USAGE>"+
		"<TOTAL_MEM>%d</TOTAL_MEM><TOTAL_CPU>%d</TOTAL_CPU><MAX_MEM>%d</MAX_MEM><MAX_CPU>%d</MAX_CPU>"+
		"<RUNNING_VMS>%d</RUNNING_VMS><VMS_THREAD>1</VMS_THREAD>"+
		"<DATASTORES><DISK_USAGE>0</DISK_USAGE><FREE_DISK>102400</FREE_DISK><MAX_DISK>102400</MAX_DISK>"+
		"<USED_DISK>0</USED_DISK></DATASTORES><PCI_DEVICES/><NUMA_NODES/></HOST_SHARE>",
		mem, cpu, maxMem, maxCPU, maxMem, maxCPU, len(vms))
	if len(vms) == 0 {
		b.WriteString("<VMS/>")
	} else {
		b.WriteString("<VMS>")
		for _, id := range vms {
			fmt.Fprintf(&b, "<ID>%d</ID>", id)
		}
		b.WriteString("</VMS>")
	}
	fmt.Fprintf(&b, "<TEMPLATE><ARCH>%s</ARCH><CPUSPEED>%s</CPUSPEED><HOSTNAME>%s</HOSTNAME>"+
		"<HYPERVISOR>%s</HYPERVISOR><RESERVED_CPU>%s</RESERVED_CPU><RESERVED_MEM>%s</RESERVED_MEM></TEMPLATE>",
		cdata("x86_64"), cdata("2400"), cdata(h.name), cdata("kvm"), cdata(""), cdata(""))
	b.WriteString("<MONITORING/></HOST>")
	return b.String()
}

func (s *Server) renderHostPool() string {
	var b strings.Builder
	b.WriteString("<HOST_POOL>")
	var ids []int
	for id := range s.hosts {
		ids = append(ids, id)
	}
	sortInts(ids)
	for _, id := range ids {
		b.WriteString(s.renderHost(s.hosts[id]))
	}
	b.WriteString("</HOST_POOL>")
	return b.String()
}
