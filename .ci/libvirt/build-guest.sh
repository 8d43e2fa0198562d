#!/usr/bin/env bash
# build-guest.sh DIR: build the test guest for the libvirt driver from
# Debian packages (nothing downloaded from elsewhere):
#
#   DIR/vmlinuz     the distribution kernel (the package linux-image-amd64
#                   depends on, unpacked with dpkg-deb)
#   DIR/initrd.img  a busybox-static initramfs whose /init
#                     - prints "bora-counter N" on the serial console
#                       (ttyS0) every second, N = 0, 1, 2, ... forever, so a
#                       restored guest shows the counter going on while a
#                       rebooted one starts again at 0;
#                     - with fill=MB on the kernel command line first writes
#                       MB of non-zero data into a tmpfs (guest memory that
#                       a save must write out; zero pages cost nothing),
#                       then prints "bora-guest: filled MB";
#                     - powers off when the ACPI power button is pressed
#                       (libvirt's shutdown), and after halt=N counts if
#                       given (a guest that ends by itself).
#   DIR/base.qcow2  an empty 64 MiB qcow2 image: the base of the per-VM
#                   overlays in the tests (the guest boots from the initrd).
#
# Cache-friendly: a file that exists and matches this script's version is
# kept. Needs: apt-get, dpkg-deb, busybox-static, cpio, qemu-img.
set -euo pipefail

DIR=${1:?usage: build-guest.sh DIR}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
log() { echo "build-guest.sh: $*"; }

need=""
command -v cpio >/dev/null || need="$need cpio"
[ -x /bin/busybox ] || need="$need busybox-static"
command -v qemu-img >/dev/null || need="$need qemu-utils"
if [ -n "$need" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

# --- kernel --------------------------------------------------------------------
# Also kept: the two modules the power button needs (Debian builds them as
# modules, uncompressed): button.ko (ACPI button) and evdev.ko (/dev/input).
if [ ! -s "$DIR/vmlinuz" ] || [ ! -s "$DIR/modules/evdev.ko" ] || [ ! -s "$DIR/modules/button.ko" ]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	if [ -z "$pkg" ]; then
		apt-get update -qq
		pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	fi
	log "fetching kernel package $pkg"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	# apt-get download drops privileges to _apt: give it a directory it may write.
	chmod 777 "$work"
	(cd "$work" && apt-get download -qq "$pkg")
	dpkg-deb -x "$work"/*.deb "$work/x"
	mkdir -p "$DIR/modules"
	cp "$work"/x/lib/modules/*/kernel/drivers/input/evdev.ko "$DIR/modules/evdev.ko"
	cp "$work"/x/lib/modules/*/kernel/drivers/acpi/button.ko "$DIR/modules/button.ko"
	cp "$work"/x/boot/vmlinuz-* "$DIR/vmlinuz.tmp"
	mv "$DIR/vmlinuz.tmp" "$DIR/vmlinuz"
	rm -rf "$work"
	trap - EXIT
fi

# --- initramfs ------------------------------------------------------------------
INIT=$(
	cat <<'EOF'
#!/bin/busybox sh
# bora test guest (built by .ci/libvirt/build-guest.sh)
/bin/busybox mkdir -p /proc /sys /dev /tmp /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm
mount -t tmpfs -o size=95% tmpfs /dev/shm
exec >/dev/ttyS0 2>&1 </dev/null
echo "bora-guest: up"

arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }

fill=$(arg fill)
if [ -n "$fill" ]; then
	dd if=/dev/urandom of=/tmp/chunk bs=1024 count=1024 2>/dev/null
	i=0
	while [ "$i" -lt "$fill" ]; do
		cat /tmp/chunk >>/dev/shm/fill
		i=$((i + 1))
	done
	echo "bora-guest: filled $fill"
fi

# The ACPI power button (libvirt's shutdown) powers the guest off.
insmod /lib/modules/button.ko 2>/dev/null
insmod /lib/modules/evdev.ko 2>/dev/null
sleep 0.2
for ev in /sys/class/input/event*; do
	if grep -q "Power Button" "$ev/device/name" 2>/dev/null; then
		( dd if="/dev/input/${ev##*/}" bs=24 count=1 of=/dev/null 2>/dev/null
		  echo "bora-guest: power button"; poweroff -f ) &
	fi
done

halt=$(arg halt)
n=0
while :; do
	echo "bora-counter $n"
	if [ -n "$halt" ] && [ "$n" -ge "$halt" ]; then
		echo "bora-guest: halting"
		poweroff -f
	fi
	n=$((n + 1))
	sleep 1
done
EOF
)
sum=$(printf '%s' "$INIT" | cat - "$DIR/modules/evdev.ko" "$DIR/modules/button.ko" | md5sum | cut -c1-12)
if [ ! -s "$DIR/initrd.img" ] || [ "$(cat "$DIR/initrd.sum" 2>/dev/null)" != "$sum" ]; then
	log "building initramfs"
	root=$(mktemp -d)
	mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
	cp /bin/busybox "$root/bin/busybox"
	mkdir -p "$root/lib/modules"
	cp "$DIR/modules/evdev.ko" "$DIR/modules/button.ko" "$root/lib/modules/"
	printf '%s\n' "$INIT" >"$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$DIR/initrd.img.tmp"
	mv "$DIR/initrd.img.tmp" "$DIR/initrd.img"
	echo "$sum" >"$DIR/initrd.sum"
	rm -rf "$root"
fi

# --- base image -------------------------------------------------------------------
if [ ! -s "$DIR/base.qcow2" ]; then
	qemu-img create -q -f qcow2 "$DIR/base.qcow2.tmp" 64M
	mv "$DIR/base.qcow2.tmp" "$DIR/base.qcow2"
fi
chmod 644 "$DIR/vmlinuz" "$DIR/initrd.img" "$DIR/base.qcow2"
log "ready: $DIR/vmlinuz $DIR/initrd.img $DIR/base.qcow2"
