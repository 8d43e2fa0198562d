#!/usr/bin/env bash
# The libvirt driver's integration tests on real libvirtd hosts and qemu
# guests: install and start two libvirtd instances (setup.sh), build the
# guest from Debian packages (build-guest.sh), run integration/libvirt,
# and always stop what was started (teardown.sh). Run as root from
# anywhere; exits with the tests' status.
#
#   BORA_LIBVIRT_TIMEOUT  go test -timeout (default 12m)
#   BORA_SHARED_DIR       shared storage of both hosts (default /var/lib/bora-shared)
#   BORA_LIBVIRT_RACE=1   run the tests with -race
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."

export BORA_SHARED_DIR=${BORA_SHARED_DIR:-/var/lib/bora-shared}
trap 'bash "$here/teardown.sh"' EXIT

start=$(date +%s)
bash "$here/setup.sh"
bash "$here/build-guest.sh" "$BORA_SHARED_DIR/guest"
echo "run-tests.sh: setup and guest ready in $(($(date +%s) - start)) s"

export BORA_LIBVIRT_A=qemu+tcp://127.0.0.1:16509/system
export BORA_LIBVIRT_B=qemu+tcp://127.0.0.1:16510/system
export BORA_GUEST_DIR=$BORA_SHARED_DIR/guest
race=""
[ "${BORA_LIBVIRT_RACE:-0}" = 1 ] && race=-race
export PATH="$PATH:/usr/local/go/bin"
set +e
go test $race -count=1 -v -timeout "${BORA_LIBVIRT_TIMEOUT:-12m}" ./integration/libvirt/... 2>&1 |
	tee "${TMPDIR:-/tmp}/bora-libvirt-tests.log" |
	grep -E '^(=== RUN|--- |PASS|FAIL|ok|panic)|libvirt_test.go|hosts_test.go'
status=${PIPESTATUS[0]}
# borad itself over the same hosts, driven through the bora CLI.
go test $race -count=1 -v -timeout "${BORA_LIBVIRT_TIMEOUT:-12m}" -run TestDaemonLibvirt ./integration/ 2>&1 |
	tee -a "${TMPDIR:-/tmp}/bora-libvirt-tests.log" |
	grep -E '^(=== RUN|--- |PASS|FAIL|ok|panic)|daemon_libvirt_test.go'
[ "${PIPESTATUS[0]}" = 0 ] || status=1
set -e
echo "run-tests.sh: tests exited $status after $(($(date +%s) - start)) s (full log: ${TMPDIR:-/tmp}/bora-libvirt-tests.log)"
exit "$status"
