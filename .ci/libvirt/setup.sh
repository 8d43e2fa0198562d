#!/usr/bin/env bash
# Install libvirt and qemu from Debian and start two libvirtd "hosts" on
# this machine for the libvirt driver's integration tests:
#
#   A  in the root namespaces, TCP 127.0.0.1:16509, migration ports 49152-49167
#   B  in its own mount+UTS namespace (private /run, private copies of
#      /etc/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt),
#      TCP 127.0.0.1:16510, migration ports 49200-49215
#
# Both have their own host_uuid (libvirt refuses to migrate between hosts
# with the same one) and share $BORA_SHARED_DIR (default /var/lib/bora-shared)
# for kernels, base images, overlays, save files and console logs.
#
# Idempotent: run it as root on a fresh Debian 12 machine or again on one
# where it already ran; a daemon that already answers is left alone.
# No systemd needed (the -sysv package keeps it out; nothing starts by itself).
set -euo pipefail

STATE=${BORA_CI_STATE:-/var/lib/bora-ci}        # B's private trees, pidfiles, logs
SHARED=${BORA_SHARED_DIR:-/var/lib/bora-shared}
PIDS=$STATE/pids
UUID_A=6b6f7261-0000-4000-8000-00000000000a
UUID_B=6b6f7261-0000-4000-8000-00000000000b

log() { echo "setup.sh: $*"; }

# --- packages ---------------------------------------------------------------
PKGS="libvirt-daemon-system libvirt-daemon-system-sysv libvirt-daemon-driver-qemu
      libvirt-clients qemu-system-x86 qemu-utils busybox-static cpio"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- /dev/kvm ----------------------------------------------------------------
# KVM does not work here (guests run with type='qemu'), but with /dev/kvm
# mode 600 libvirt re-probes qemu on every call (~40 s a define).
if [ -e /dev/kvm ] && getent group kvm >/dev/null; then
	chgrp kvm /dev/kvm
	chmod 660 /dev/kvm
fi

mkdir -p "$PIDS" "$STATE/logs" "$SHARED"
chmod 755 "$SHARED"

# setkey FILE KEY VALUE: make FILE contain exactly one "KEY = VALUE" line.
setkey() {
	local f=$1 k=$2 v=$3
	touch "$f"
	sed -i -E "/^[[:space:]]*#?[[:space:]]*${k}[[:space:]]*=/d" "$f"
	echo "$k = $v" >>"$f"
}

# configure ETC PORT UUID MIGMIN MIGMAX: the settings of one instance.
configure() {
	local etc=$1 port=$2 uuid=$3 migmin=$4 migmax=$5
	setkey "$etc/libvirtd.conf" listen_tls 0
	setkey "$etc/libvirtd.conf" listen_tcp 1
	setkey "$etc/libvirtd.conf" tcp_port "\"$port\""
	setkey "$etc/libvirtd.conf" listen_addr '"127.0.0.1"'
	setkey "$etc/libvirtd.conf" auth_tcp '"none"'
	setkey "$etc/libvirtd.conf" host_uuid "\"$uuid\""
	setkey "$etc/qemu.conf" migration_port_min "$migmin"
	setkey "$etc/qemu.conf" migration_port_max "$migmax"
	# (No migration_address: libvirt rejects a local address there; bora
	# passes the migration URI, tcp://127.0.0.1, with every migration.)
	sed -i -E '/^[[:space:]]*migration_address[[:space:]]*=/d' "$etc/qemu.conf"
	# No default network: the two instances share one network namespace and
	# bora's domains need none.
	rm -f "$etc/qemu/networks/autostart/default.xml"
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

answers() { virsh -c "qemu+tcp://127.0.0.1:$1/system" version >/dev/null 2>&1; }

wait_for() {
	local port=$1 i
	for i in $(seq 1 120); do
		if answers "$port"; then
			log "libvirtd on port $port answers"
			return 0
		fi
		sleep 0.5
	done
	log "libvirtd on port $port does not answer; its log:"
	tail -n 30 "$STATE/logs/"*"$port"*.log >&2 || true
	return 1
}

# --- instance A ----------------------------------------------------------------
configure /etc/libvirt 16509 $UUID_A 49152 49167
if ! alive "$PIDS/a-virtlogd.pid"; then
	virtlogd -d -p "$PIDS/a-virtlogd.pid"
fi
if ! alive "$PIDS/a-libvirtd.pid"; then
	log "starting libvirtd A"
	LIBVIRT_LOG_OUTPUTS="3:file:$STATE/logs/libvirtd-a-16509.log" \
		libvirtd -d -l -p "$PIDS/a-libvirtd.pid"
fi

# --- instance B ----------------------------------------------------------------
B=$STATE/b
if [ ! -f "$B/.copied" ]; then
	log "making B's private copies in $B"
	rm -rf "$B"
	mkdir -p "$B"
	# A, just started, may be writing its files (nwfilter's *.xml.new
	# renamed as they are written): copy again until a copy is whole.
	copy_tree() {
		local n
		for n in 1 2 3 4 5 6 7 8 9 10; do
			rm -rf "$2"
			cp -a "$1" "$2" 2>/dev/null && return 0
			sleep 1
		done
		cp -a "$1" "$2"
	}
	copy_tree /etc/libvirt "$B/etc"
	copy_tree /var/lib/libvirt "$B/lib"
	rm -f "$B/etc/nwfilter/"*.new
	mkdir -p "$B/log" "$B/cache"
	# A's domain definitions are not B's.
	rm -f "$B/etc/qemu/"*.xml "$B/etc/qemu/autostart/"*.xml
	rm -rf "$B/lib/qemu/save/"* "$B/lib/qemu/snapshot/"* "$B/lib/qemu/checkpoint/"*
	touch "$B/.copied" # a copy cut short is made again next time
fi
configure "$B/etc" 16510 $UUID_B 49200 49215
if ! alive "$PIDS/b-libvirtd.pid"; then
	log "starting libvirtd B in its own mount+UTS namespace"
	# A virtlogd left from an earlier B lives in that B's namespace: stop it.
	if alive "$PIDS/b-virtlogd.pid"; then
		kill "$(cat "$PIDS/b-virtlogd.pid")"
		sleep 0.5
	fi
	# The namespace lives as long as the daemons started in it.
	unshare --mount --uts --propagation private /bin/sh -ec "
		hostname bora-ci-b
		mount -t tmpfs -o mode=755 tmpfs /run
		mkdir -p /run/lock /run/libvirt
		mount --bind '$B/etc' /etc/libvirt
		mount --bind '$B/lib' /var/lib/libvirt
		mount --bind '$B/log' /var/log/libvirt
		mount --bind '$B/cache' /var/cache/libvirt
		virtlogd -d -p '$PIDS/b-virtlogd.pid'
		LIBVIRT_LOG_OUTPUTS='3:file:$STATE/logs/libvirtd-b-16510.log' \
			libvirtd -d -l -p '$PIDS/b-libvirtd.pid'
	"
fi

wait_for 16509
wait_for 16510
log "ready: A qemu+tcp://127.0.0.1:16509/system, B qemu+tcp://127.0.0.1:16510/system, shared $SHARED"
