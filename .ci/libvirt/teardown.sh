#!/usr/bin/env bash
# Undo setup.sh's daemons: destroy and undefine bora's domains (and the
# tests' "bora-foreign") on both libvirtd instances, then stop libvirtd
# and virtlogd of B and A by their pidfiles. qemu outlives libvirtd, so
# the domains go first. Safe to run when nothing is running.
set -uo pipefail

STATE=${BORA_CI_STATE:-/var/lib/bora-ci}
PIDS=$STATE/pids
log() { echo "teardown.sh: $*"; }

for port in 16509 16510; do
	uri="qemu+tcp://127.0.0.1:$port/system"
	virsh -c "$uri" version >/dev/null 2>&1 || continue
	for dom in $(virsh -c "$uri" list --all --name 2>/dev/null | grep -E '^bora-'); do
		log "removing $dom from port $port"
		virsh -c "$uri" destroy "$dom" >/dev/null 2>&1
		virsh -c "$uri" undefine "$dom" >/dev/null 2>&1
	done
done

stop() {
	local f=$PIDS/$1.pid pid i
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		log "stopping $1 (pid $pid)"
		kill "$pid"
		for i in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			log "$1 still there: SIGKILL"
			kill -9 "$pid"
		fi
	fi
	rm -f "$f"
}
stop b-libvirtd
stop b-virtlogd
stop a-libvirtd
stop a-virtlogd
log "done"
