#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The uC/OS-III port's image (ports/ucos3) built with rtbench's -Werror flags
# and booted in QEMU's mps2-an385: it must say `ready` with its release, give
# /rtbench/ucos3.json and run the core's `list`, so the port builds and
# starts while no rtbench target drives it yet. UCOS3_PATH names the folder
# holding uC-OS3, uC-CPU and uC-LIB; without it, a shared/deps folder beside
# the checkout (or beside its parent) is used. Usage: ucos3-image.sh
# [BUILD_DIR]. Exit 77 (skip) when the sources or tools are missing.
set -eu
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
build=${1:-$root/build/ucos3-image}

if [ -z "${UCOS3_PATH:-}" ]; then
	for dir in "$root/../shared/deps" "$root/../../shared/deps"; do
		if [ -f "$dir/uC-OS3/Source/os_core.c" ]; then
			UCOS3_PATH=$(cd "$dir" && pwd -P)
			break
		fi
	done
fi
if [ -z "${UCOS3_PATH:-}" ] || [ ! -f "$UCOS3_PATH/uC-OS3/Source/os_core.c" ]; then
	echo "skipped: no uC/OS-III sources (set UCOS3_PATH to the folder holding uC-OS3, uC-CPU, uC-LIB)"
	exit 77
fi
for tool in arm-none-eabi-gcc cmake qemu-system-arm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "skipped: $tool is not installed"
		exit 77
	fi
done

cmake -S "$root" -B "$build" -DRTB_PORT=ucos3 -DUCOS3_PATH="$UCOS3_PATH" -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/arm-none-eabi-cortex-m3.cmake" >/dev/null
cmake --build "$build" -j2 >/dev/null
image=$build/rtbench-ucos3-mps2-an385.elf

# The requests, then `off` (a reset request: QEMU with -no-reboot exits).
out=$({
	printf '#rtb hello\n#rtb read /rtbench/ucos3.json\n#rtb run list --cpu 0\n'
	sleep 5
	printf '#rtb off\n'
} | timeout 60 qemu-system-arm -M mps2-an385 -cpu cortex-m3 -nographic -no-reboot -monitor none \
	-kernel "$image" -serial stdio 2>&1 || true)
status=0
check() {
	if ! grep -q -- "$1" <<<"$out"; then
		echo "FAIL: the image did not say $2"
		status=1
	fi
}
check '^#rtb ready 1 uC/OS-III%20V3\.' "ready with its release"
check '^#rtb data {"kernel":"V3\.' "the facts file"
check '^#rtb done' "the end of the facts file"
check '"type":"catalog","scenario":"sem.behavior.release_order"' "the catalog"
check '^#rtb exit 0' "the end of the run"
if grep -q '^#rtb err' <<<"$out"; then
	echo "FAIL: the image reported an error: $(grep '^#rtb err' <<<"$out" | head -n 1)"
	status=1
fi
[ $status -eq 0 ] && echo "ucos3 image: ready, facts, catalog and exit on the board"
exit $status
