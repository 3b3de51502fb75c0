# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by ./rtbench and tests/run. `rtb_bootstrap runtime|dev` makes sure
# the tools rtbench needs are installed and that .venv holds exactly the
# pinned Python packages (requirements/runtime.txt, plus requirements/dev.txt
# for `dev`). Missing Debian packages are installed with apt-get when running
# as root; otherwise one sentence says what to install and the caller exits 2.
#
# The slow path (apt, venv creation, pip) runs only when something is missing
# or a requirements file changed: a stamp in .venv holds the hash of what was
# installed, so later calls cost a few shell tests.

rtb_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
rtb_venv="$rtb_root/.venv"
rtb_python="$rtb_venv/bin/python"

rtb_say() { printf '%s\n' "$*" >&2; }

# The Debian package that provides each missing tool, space separated.
rtb_missing_packages() {
	local want=$1 missing=""
	# Without python3 there is no python3-venv either (Debian packages them apart).
	command -v python3 >/dev/null 2>&1 || missing="$missing python3 python3-venv"
	command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
	if ! command -v cc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
		missing="$missing build-essential"
	fi
	if [ "$want" = dev ] && ! command -v clang-format >/dev/null 2>&1; then
		missing="$missing clang-format"
	fi
	# the fuzz step: clang with libFuzzer and its sanitizer runtimes
	if [ "$want" = dev ] && ! command -v clang-14 >/dev/null 2>&1; then
		missing="$missing clang-14 libclang-rt-14-dev"
	fi
	# QEMU guests (targets.qemu): the emulators, and gpgv to check the signed
	# package index the guests' kernels come from (with Debian's keyring, which
	# apt itself needs, so every Debian system has it).
	if [ "$want" = dev ]; then
		command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
		command -v qemu-system-aarch64 >/dev/null 2>&1 || missing="$missing qemu-system-arm"
		command -v gpgv >/dev/null 2>&1 || missing="$missing gpgv"
	fi
	# The FreeRTOS port's image (ports/freertos) and the core's Cortex-M3
	# cross-build check (tests/cross): the bare-metal compiler and its C library.
	if [ "$want" = dev ]; then
		command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing="$missing gcc-arm-none-eabi"
		[ -f /usr/lib/picolibc/arm-none-eabi/picolibc.specs ] ||
			missing="$missing picolibc-arm-none-eabi"
	fi
	# The NuttX port's image (ports/nuttx): NuttX's configure.sh calls kconfig-tweak.
	if [ "$want" = dev ] && ! command -v kconfig-tweak >/dev/null 2>&1; then
		missing="$missing kconfig-frontends-nox"
	fi
	# The system tests read this machine through BusyBox alone, as in a minimal guest.
	if [ "$want" = dev ] && ! command -v busybox >/dev/null 2>&1; then
		missing="$missing busybox-static"
	fi
	# The browser tests open the HTML report in headless Chromium.
	if [ "$want" = dev ] && ! command -v chromium >/dev/null 2>&1; then
		missing="$missing chromium"
	fi
	if [ "$want" = dev ] && ! command -v chromedriver >/dev/null 2>&1; then
		missing="$missing chromium-driver"
	fi
	# The trace export tests read a CTF trace back with babeltrace2; the export
	# writes it through babeltrace2's Python bindings (Debian's python3 only).
	if [ "$want" = dev ] && ! command -v babeltrace2 >/dev/null 2>&1; then
		missing="$missing babeltrace2"
	fi
	if [ "$want" = dev ] && ! [ -d /usr/lib/python3/dist-packages/bt2 ]; then
		missing="$missing python3-bt2"
	fi
	# The SSH target's tests start a real sshd in a network namespace (the client,
	# openssh-client, comes with it; `ip` makes the namespace).
	if [ "$want" = dev ] && ! [ -x /usr/sbin/sshd ]; then
		missing="$missing openssh-server"
	fi
	if [ "$want" = dev ] && ! command -v ip >/dev/null 2>&1; then
		missing="$missing iproute2"
	fi
	# The background load of `rtbench run --load` (optional at run time: --load
	# names the packages when they are missing); its tests need them.
	if [ "$want" = dev ] && ! command -v stress-ng >/dev/null 2>&1; then
		missing="$missing stress-ng"
	fi
	if [ "$want" = dev ] && ! command -v hackbench >/dev/null 2>&1; then
		missing="$missing rt-tests"
	fi
	# The serial target's tests serve the emulated board's UART over RFC 2217 with
	# ser2net, as labs do (Debian puts it in /usr/sbin, not on every user's PATH).
	if [ "$want" = dev ] && ! command -v ser2net >/dev/null 2>&1 && ! [ -x /usr/sbin/ser2net ]; then
		missing="$missing ser2net"
	fi
	# Cores for SSH and QEMU targets: static builds for AArch64 and 32-bit
	# ARM (Debian's cross compilers, on an x86-64 host) and with musl.
	if [ "$want" = dev ] && [ "${HOSTTYPE:-}" = x86_64 ]; then
		command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
			missing="$missing gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
		command -v arm-linux-gnueabihf-gcc >/dev/null 2>&1 ||
			missing="$missing gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
	fi
	if [ "$want" = dev ] && ! command -v musl-gcc >/dev/null 2>&1; then
		missing="$missing musl-tools"
	fi
	# The tests run the ARM cores under QEMU's user-mode emulation.
	if [ "$want" = dev ] && [ "${HOSTTYPE:-}" = x86_64 ] &&
		! command -v qemu-aarch64-static >/dev/null 2>&1; then
		missing="$missing qemu-user-static"
	fi
	printf '%s' "${missing# }"
}

# Slower checks, done only on the slow path: can python3 make a venv, can cc
# find the C library headers.
rtb_missing_capabilities() {
	local missing=""
	if command -v python3 >/dev/null 2>&1 &&
		! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
		missing="$missing python3-venv"
	fi
	if command -v cc >/dev/null 2>&1 &&
		! printf '#include <stdio.h>\n' | cc -E -x c - >/dev/null 2>&1; then
		missing="$missing build-essential"
	fi
	# The cross compilers without their C library (installed without
	# recommends) compile nothing.
	if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
		[ ! -e /usr/aarch64-linux-gnu/include/stdio.h ]; then
		missing="$missing libc6-dev-arm64-cross"
	fi
	if command -v arm-linux-gnueabihf-gcc >/dev/null 2>&1 &&
		[ ! -e /usr/arm-linux-gnueabihf/include/stdio.h ]; then
		missing="$missing libc6-dev-armhf-cross"
	fi
	printf '%s' "${missing# }"
}

rtb_install_packages() {
	local packages=$1 log
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		rtb_say "rtbench needs these packages, which are missing: $packages; install them first (on Debian: sudo apt-get install $packages)."
		return 2
	fi
	log="${TMPDIR:-/tmp}/rtbench-apt.log"
	rtb_say "Installing $packages with apt-get (log: $log)..."
	# shellcheck disable=SC2086 # the package list is meant to split
	# A new machine may still be installing its own updates: wait for the
	# package manager's lock instead of failing at once.
	if ! { apt-get -o DPkg::Lock::Timeout=600 update &&
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
			--no-install-recommends $packages; } >"$log" 2>&1; then
		rtb_say "apt-get could not install $packages; see $log."
		return 2
	fi
}

rtb_stamp_value() {
	# What a valid installation of requirements/$1.txt looks like.
	local sum
	sum=$(sha256sum "$rtb_root/requirements/$1.txt") || return 1
	printf '%s %s\n' "${sum%% *}" "$rtb_root"
}

rtb_stamp_ok() {
	local file="$rtb_venv/.rtbench-$1.stamp"
	[ -x "$rtb_python" ] && [ -f "$file" ] && [ "$(cat "$file")" = "$(rtb_stamp_value "$1")" ]
}

rtb_pip_install() {
	local set=$1
	"$rtb_python" -m pip install --require-hashes --disable-pip-version-check --no-input \
		--quiet -r "$rtb_root/requirements/$set.txt" >&2 || {
		rtb_say "Installing the Python packages of requirements/$set.txt failed (see the messages above)."
		return 1
	}
	rtb_stamp_value "$set" >"$rtb_venv/.rtbench-$set.stamp"
}

rtb_setup_venv() {
	local want=$1 version purelib
	if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
		version=$(python3 -c 'import platform; print(platform.python_version())' 2>/dev/null)
		rtb_say "rtbench needs Python 3.11 or newer, but python3 is ${version:-unusable}; install a newer python3 first."
		return 2
	fi
	if [ -d "$rtb_venv" ] && ! "$rtb_python" -c 'import sys' >/dev/null 2>&1; then
		rtb_say "Recreating the broken environment in $rtb_venv..."
		rm -rf "$rtb_venv"
	fi
	if [ ! -x "$rtb_python" ]; then
		rtb_say "Creating the Python environment in $rtb_venv (first run)..."
		python3 -m venv "$rtb_venv" || {
			rtb_say "python3 -m venv failed; install python3-venv first."
			return 2
		}
	fi
	# The package is used from the source tree: a .pth file puts python/ on the path.
	purelib=$("$rtb_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') || return 1
	printf '%s\n' "$rtb_root/python" >"$purelib/rtbench-source.pth"
	rtb_say "Installing the pinned Python packages ($want)..."
	if [ "$want" = dev ]; then
		# The dev set's labgrid brings its own fork of pyserial, which owns the
		# files pyserial would: an environment that has pyserial gives it up first.
		if "$rtb_python" -m pip show --disable-pip-version-check -q pyserial >/dev/null 2>&1; then
			"$rtb_python" -m pip uninstall --disable-pip-version-check -y -q pyserial >&2 || return 1
		fi
		rtb_pip_install dev || return 1
	fi
	rtb_pip_install runtime || return 1
}

# Can this user prepare the checkout (create build/ and .venv)?
rtb_writable_checkout() {
	if [ -e "$rtb_root/build" ]; then
		[ -w "$rtb_root/build" ] || return 1
	else
		[ -w "$rtb_root" ] || return 1
	fi
	if [ -e "$rtb_venv" ]; then
		[ -w "$rtb_venv" ] || return 1
	else
		[ -w "$rtb_root" ] || return 1
	fi
}

# rtb_bootstrap runtime|dev: returns 0 when ready, 2 when the user must install
# something, 1 on other failures.
rtb_bootstrap() {
	local want=${1:-runtime} missing lock_fd rc=0
	missing=$(rtb_missing_packages "$want")
	if [ -z "$missing" ] && rtb_stamp_ok runtime && { [ "$want" = runtime ] || rtb_stamp_ok dev; }; then
		return 0
	fi
	if ! rtb_writable_checkout; then
		if [ -e "$rtb_venv" ]; then
			rtb_say "rtbench: the Python environment in $rtb_venv is not usable by $(id -un) and this checkout is not writable by it; run rtbench as the checkout's owner, or use a clone of your own."
		else
			rtb_say "rtbench: this checkout ($rtb_root) is not prepared yet and not writable by $(id -un); run ./rtbench once as its owner, or use a clone of your own."
		fi
		return 2
	fi
	mkdir -p "$rtb_root/build" || return 1
	if ! exec {lock_fd}>"$rtb_root/build/.bootstrap.lock"; then
		rtb_say "rtbench: cannot create $rtb_root/build/.bootstrap.lock; check the permissions of $rtb_root/build."
		return 2
	fi
	flock "$lock_fd"
	missing=$(rtb_missing_packages "$want")
	if [ -z "$missing" ]; then
		missing=$(rtb_missing_capabilities)
	fi
	if [ -n "$missing" ]; then
		rtb_install_packages "$missing" || rc=$?
		if [ "$rc" -eq 0 ]; then
			missing="$(rtb_missing_packages "$want") $(rtb_missing_capabilities)"
			missing=$(printf '%s' "$missing" | xargs)
			if [ -n "$missing" ]; then
				rtb_say "These packages are still missing after apt-get: $missing; install them by hand."
				rc=2
			fi
		fi
	fi
	if [ "$rc" -eq 0 ] && ! { rtb_stamp_ok runtime && { [ "$want" = runtime ] || rtb_stamp_ok dev; }; }; then
		rtb_setup_venv "$want" || rc=$?
	fi
	exec {lock_fd}>&-
	return "$rc"
}
