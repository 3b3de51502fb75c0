#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The core, the scenarios, the template port and the ports' shared code
# (ports/common, against the template's inline header) cross-built for a Cortex-M3
# with arm-none-eabi-gcc and picolibc (32-bit, uint32_t is unsigned long,
# no OS headers), with rtbench's -Werror flags, and held to a size budget:
# a format, type-width or C-library break, or a jump in code or static data
# size, shows here at once. Usage: cortex-m3.sh [BUILD_DIR]. Exit 77 (skip)
# when the tools are missing.
set -eu
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
build=${1:-$root/build/cross-cortex-m3}

# Budgets, in bytes (Release, -O3). Raise them only for growth that is meant.
text_budget=$((320 * 1024)) # code and constants
bss_budget=$((12 * 1024))   # static data of the core (buffers come from the port)

for tool in arm-none-eabi-gcc arm-none-eabi-size cmake; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "skipped: $tool is not installed (gcc-arm-none-eabi, picolibc-arm-none-eabi)"
		exit 77
	fi
done
if ! arm-none-eabi-gcc --specs=picolibc.specs -E -x c /dev/null -o /dev/null 2>/dev/null; then
	echo "skipped: picolibc for arm-none-eabi is not installed (picolibc-arm-none-eabi)"
	exit 77
fi

cmake -S "$root" -B "$build" -DRTB_PORT=template -DRTB_TEMPLATE=OFF -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/arm-none-eabi-cortex-m3.cmake" >/dev/null
cmake --build "$build" -j2 --target rtb_core_template rtb_scenarios_template rtb_port_template
# The port code firmware ports share (ports/common: the serial line protocol,
# the console, error names, IPC stubs), compiled with the same compiler and
# flags; the console reads the core's header, a board's (mps2-an385) and its
# architecture's (cortex-m).
mkdir -p "$build/common"
for src in "$root"/ports/common/*.c; do
	arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb --specs=picolibc.specs -std=c11 -O3 \
		-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -I"$root/ports" -I"$root/ports/template" \
		-I"$root/core/include" -I"$root/ports/boards/mps2-an385" -I"$root/ports/arch/cortex-m" \
		-c "$src" -o "$build/common/$(basename "$src" .c).o"
done

# the objects of today's scenario sources only: one left in the build folder by
# a source since renamed or removed would count against the budget
objects=()
for src in "$root"/core/scenarios/*.c; do
	objects+=("$build/CMakeFiles/rtb_scenarios_template.dir/core/scenarios/$(basename "$src").obj")
done
read -r text data bss _ < <(arm-none-eabi-size -t "${objects[@]}" \
	"$build/librtb_core_template.a" "$build/librtb_port_template.a" | tail -n 1)
echo "cortex-m3: text $text, data $data, bss $bss bytes (budgets: text+data $text_budget, bss $bss_budget)"
status=0
if [ $((text + data)) -gt "$text_budget" ]; then
	echo "FAIL: code and constants grew past the budget"
	status=1
fi
if [ "$bss" -gt "$bss_budget" ]; then
	echo "FAIL: static data grew past the budget (large buffers belong on the port's allocator)"
	status=1
fi
exit $status
