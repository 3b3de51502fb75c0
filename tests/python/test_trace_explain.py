# SPDX-License-Identifier: Apache-2.0
"""The trace's reading, clock map and explanation on synthetic traces (no tracefs)."""

from __future__ import annotations

from rtbench.trace.kernel import clockmap, explain, timeline
from rtbench.trace.kernel.events import Event, parse_line, parse_ts
from rtbench.trace.kernel.hook import explain_metric

HZ = 2_000_000_000.0  # 2 trace units (ticks) per ns


def _line(comm: str, pid: int, cpu: int, ts: int, name: str, rest: str) -> str:
    return f"{comm:>16}-{pid:<7} [{cpu:03d}] d.h1. {ts}: {name}: {rest}"


def test_parse_lines() -> None:
    e = parse_line(
        "   kworker/u4:1-12 [001] d.h2. 27170859398930: irq_handler_entry: "
        "irq=24 name=virtio0-input"
    )
    assert e is not None
    assert (e.comm, e.pid, e.cpu, e.ts, e.name) == (
        "kworker/u4:1",
        12,
        1,
        27170859398930,
        "irq_handler_entry",
    )
    assert e.args == {"irq": "24", "irq_name": "virtio0-input"}
    s = parse_line(
        "  my task-name-77 [000] d..2. 12.000345: sched_switch: prev_comm=my task-name "
        "prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=rtbench-core next_pid=80 next_prio=2"
    )
    assert s is not None and s.comm == "my task-name" and s.ts == 12_000_345_000
    assert s.args["next_comm"] == "rtbench-core" and s.args["prev_comm"] == "my task-name"
    soft = parse_line(_line("a", 1, 0, 5, "softirq_entry", "vec=3 [action=NET_RX]"))
    assert soft is not None and soft.args["action"] == "NET_RX"
    assert parse_line("# tracer: nop") is None
    assert parse_line("garbage") is None
    assert parse_ts("1.5") == 1_500_000_000


def _switch(prev: str, ppid: int, pprio: int, nxt: str, npid: int, nprio: int, ts: int) -> str:
    rest = (
        f"prev_comm={prev} prev_pid={ppid} prev_prio={pprio} prev_state=R+ ==> "
        f"next_comm={nxt} next_pid={npid} next_prio={nprio}"
    )
    return _line(prev, ppid, 1, ts, "sched_switch", rest)


def _timeline() -> explain.CpuTimeline:
    lines = [
        _line("rtbench-core", 80, 1, 0, "sched_waking", "comm=x pid=9 prio=120 target_cpu=001"),
        _line("rtbench-core", 80, 1, 100, "irq_handler_entry", "irq=24 name=virtio0-input"),
        _line("rtbench-core", 80, 1, 300, "irq_handler_exit", "irq=24 ret=handled"),
        _line("rtbench-core", 80, 1, 300, "softirq_entry", "vec=3 [action=NET_RX]"),
        _line("rtbench-core", 80, 1, 320, "local_timer_entry", "vector=236"),
        _line("rtbench-core", 80, 1, 330, "local_timer_exit", "vector=236"),
        _line("rtbench-core", 80, 1, 350, "softirq_exit", "vec=3 [action=NET_RX]"),
        _switch("rtbench-core", 80, 2, "burner", 99, 0, 400),
        _switch("burner", 99, 0, "rtbench-core", 80, 2, 900),
        _line("rtbench-core", 80, 1, 2000, "local_timer_entry", "vector=236"),
        _line("rtbench-core", 80, 1, 2010, "local_timer_exit", "vector=236"),
    ]
    events = [e for e in (parse_line(x) for x in lines) if e is not None]
    return explain.timelines(events)[1]


def _map() -> clockmap.ClockMap:
    return clockmap.ClockMap(
        trace_clock="x86-tsc", units_per_ns=2.0, mono0=0.0, trace0=0.0, marker_error_ns=0.0,
        counter_method="identity", counter_residual_ns=0.0,
    )  # fmt: skip


def test_explanation_sums_each_context_once() -> None:
    line = _timeline()
    w = explain.Window("worst", 0, 7, 475.0, 50.0, 1000.0)
    got = explain.explain_window(w, line, _map())
    causes = {c["label"]: c["ns"] for c in got["causes"]}
    # units are 2 per ns; the timer interrupt inside the softirq is the timer's
    assert causes == {
        "task burner:99": 250.0,
        "irq 24 virtio0-input": 100.0,
        "softirq NET_RX": 20.0,
        "local timer interrupt": 5.0,
    }
    assert got["self_ns"] == (50 + 50 + 100) / 2
    assert got["window_ns"] == 475.0
    assert got["unexplained_share"] == round(100 / 475, 4)
    assert got["line"].startswith("max 475 ns: task burner:99 250 ns, irq 24 virtio0-input 100 ns")
    assert got["line"].endswith("(21 % unexplained)")


def test_a_window_without_causes_is_not_explained() -> None:
    w = explain.Window("worst", 1, 3, 200.0, 1000.0, 1400.0)
    got = explain.explain_window(w, _timeline(), _map())
    assert got["causes"] == []
    assert got["line"] == "worst #2 200 ns: not explained by the kernel trace (100 % unexplained)"


def test_a_window_before_the_trace_is_not_covered() -> None:
    w = explain.Window("worst", 0, 3, 200.0, -500.0, -100.0)
    got = explain.explain_window(w, _timeline(), _map())
    assert got["covered"] is False and "not covered" in got["line"]
    assert "causes" not in got


def _points(offset_units: float) -> list[clockmap.SyncPoint]:
    # monotonic ns -> trace: 2 units per ns, trace = 2 * mono + offset
    return [
        clockmap.SyncPoint(mono, 1000.0, int(2 * mono + offset_units))
        for mono in (1e9, 1.001e9, 3e9, 3.001e9)
    ]


def test_clock_map_identity_is_checked() -> None:
    # the counter reads exactly the trace clock: pairs agree with the markers
    pairs = [
        {"counter": int(2 * 1.5e9 + 777), "time_ns": int(1.5e9), "error_ticks": 10},
        {"counter": int(2 * 2.5e9 + 777), "time_ns": int(2.5e9), "error_ticks": 10},
    ]
    cmap = clockmap.fit("x86-tsc", _points(777), 2.0, pairs, HZ)
    assert cmap is not None
    assert cmap.counter_method == "identity"
    assert cmap.units_per_ns == 2.0
    assert cmap.from_counter(12345) == 12345
    # monotonic readings then go through the pairs, onto the counter
    assert cmap.mono_method == "clock_pairs"
    assert abs(cmap.from_mono(2e9) - (2 * 2e9 + 777)) < 1e-3


def test_clock_map_falls_back_to_the_pairs_when_the_clocks_differ() -> None:
    # control: a counter 1 ms (2e6 units) away from the trace clock is not the identity
    pairs = [
        {"counter": int(2 * 1.5e9 + 777 + 2e6), "time_ns": int(1.5e9), "error_ticks": 10},
        {"counter": int(2 * 2.5e9 + 777 + 2e6), "time_ns": int(2.5e9), "error_ticks": 10},
    ]
    cmap = clockmap.fit("x86-tsc", _points(777), 2.0, pairs, HZ)
    assert cmap is not None and cmap.counter_method == "clock_pairs"
    assert cmap.mono_method == "markers"
    assert cmap.counter_residual_ns is not None and abs(cmap.counter_residual_ns - 1e6) < 1
    mapped = cmap.from_counter(2 * 2e9 + 777 + 2e6)
    assert mapped is not None and abs(mapped - (2 * 2e9 + 777)) < 2
    assert clockmap.fit("x86-tsc", [], 2.0, pairs, HZ) is None


def test_explain_metric_per_clock() -> None:
    record = {
        "unit": "ticks",
        "spans": {
            "worst": [
                {"index": 7, "value": 950, "clock": "counter", "start": 50, "stop": 1000},
                {"index": 9, "value": 10, "clock": "none"},
            ],
            "median": [{"index": 2, "value": 800, "clock": "time_ns", "start": 500, "stop": 1000}],
        },
    }
    got = explain_metric(record, _timeline(), _map(), HZ, [], [], "trace/x.txt.gz")
    worst, blind, median = got["samples"]
    assert worst["value_ns"] == 475.0 and worst["covered"] is True
    assert got["line"] == worst["line"]
    assert blind["covered"] is False and "keeps only the duration" in blind["line"]
    # time_ns 500..1000 -> trace units 1000..2000: after the burner, rtbench-core only
    assert median["kind"] == "median" and median["causes"] == []


def test_worst_sample_timeline_is_drawn() -> None:
    record = {
        "unit": "ticks",
        "spans": {
            "worst": [{"index": 7, "value": 950, "clock": "counter", "start": 50, "stop": 1000}],
            "median": [],
        },
    }
    got = explain_metric(record, _timeline(), _map(), HZ, [], [], "trace/x.txt.gz")
    segments = got["samples"][0]["timeline"]
    # merged: one slice per context occurrence, in ns from the sample's start
    assert [s for s in segments if s[3] == "task burner:99"] == [
        [175.0, 425.0, "task", "task burner:99"]
    ]
    drawn = timeline.worst_sample_svg(got)
    assert drawn is not None
    svg, caption = drawn
    assert svg.startswith("<svg") and "<title>task burner:99 250 ns</title>" in svg
    assert "irq 24 virtio0-input" in svg and caption.endswith(got["line"] + ".")
    # control: a sample the trace does not cover draws nothing
    got["samples"][0]["covered"] = False
    assert timeline.worst_sample_svg(got) is None


def test_idle_time_is_named_in_the_unexplained_part() -> None:
    lines = [
        _line("<idle>", 0, 1, 5000, "local_timer_entry", "vector=236"),
        _line("<idle>", 0, 1, 5010, "local_timer_exit", "vector=236"),
        _switch("<idle>", 0, 120, "rtbench-core", 80, 2, 5020),
        _line("rtbench-core", 80, 1, 5030, "local_timer_entry", "vector=236"),
    ]
    events = [e for e in (parse_line(x) for x in lines) if e is not None]
    w = explain.Window("worst", 0, 1, 15.0, 5000.0, 5030.0)
    got = explain.explain_window(w, explain.timelines(events)[1], _map())
    # the window: 5 ns of interrupt, 5 ns idle, 5 ns rtbench-core (2 units per ns)
    assert got["idle_ns"] == 5.0 and got["self_ns"] == 5.0
    assert got["line"] == (
        "max 15.0 ns: local timer interrupt 5.00 ns; mostly not explained by the kernel "
        "trace (67 % unexplained, CPU idle 5.00 ns)"
    )


def _events(lines: list[str]) -> list[Event]:
    return [e for e in (parse_line(x) for x in lines) if e is not None]


def _idle_then_burn(woken_at: int | None, wake_cpu: int = 1) -> list[str]:
    """CPU 1 idle; a timer interrupt at 1000..1100 (in the idle task) wakes rtbench-core
    and, when `woken_at` is given, the burner (from CPU `wake_cpu` at that time); the
    trace has no switch from idle (as on a kernel that records none of the idle task's
    own events), only the burner's switch to rtbench-core at 5100."""
    lines = [
        _switch("rtbench-core", 80, 2, "swapper/1", 0, 120, 500),
        _line("<idle>", 0, 1, 1000, "local_timer_entry", "vector=236"),
        _line("<idle>", 0, 1, 1010, "sched_wakeup",
              "comm=rtbench-core pid=80 prio=2 target_cpu=001"),
        _line("<idle>", 0, 1, 1100, "local_timer_exit", "vector=236"),
        _switch("rtb-disturb", 99, 0, "rtbench-core", 80, 2, 5100),
        _switch("rtbench-core", 80, 2, "swapper/1", 0, 120, 5200),
    ]  # fmt: skip
    if woken_at is not None:
        waker = ("<idle>", 0) if wake_cpu == 1 else ("python", 7)
        lines.append(
            _line(*waker, wake_cpu, woken_at, "sched_wakeup",
                  "comm=rtb-disturb pid=99 prio=0 target_cpu=001")
        )  # fmt: skip
    return sorted(lines, key=lambda x: int(x.split("]", 1)[1].split()[1].rstrip(":")))


def test_a_switch_from_idle_missing_from_the_trace_is_placed_at_the_wake_up() -> None:
    # the burner, woken in the idle task's interrupt, ran from that interrupt's end
    # (1100) to its switch at 5100: 2000 ns at 2 units per ns, not idle time
    line = explain.timelines(_events(_idle_then_burn(1020)))[1]
    w = explain.Window("worst", 0, 1, 2100.0, 900.0, 5150.0)
    got = explain.explain_window(w, line, _map())
    assert got["causes"][0] == {"kind": "task", "label": "task rtb-disturb:99", "ns": 2000.0,
                                "count": 1}  # fmt: skip
    assert got["idle_ns"] == 50.0 and got["inferred_switches"] == 1
    assert line.inferred == [(1100, 5100)]
    # control: without its wake-up nothing is inferred, the gap stays idle
    bare = explain.timelines(_events(_idle_then_burn(None)))[1]
    got = explain.explain_window(w, bare, _map())
    assert got["causes"][1:] == [] and got["causes"][0]["label"] == "local timer interrupt"
    assert got["idle_ns"] == 2050.0 and "inferred_switches" not in got and bare.inferred == []


def test_a_wake_up_from_another_cpu_places_the_missing_switch() -> None:
    # woken from CPU 0 at 3100, after the idle task's last event: idle until then
    events = _events(_idle_then_burn(3100, wake_cpu=0))
    lines = explain.timelines(events, cpus={1})
    assert set(lines) == {1} and lines[1].inferred == [(3100, 5100)]
    w = explain.Window("worst", 0, 1, 2100.0, 900.0, 5150.0)
    got = explain.explain_window(w, lines[1], _map())
    assert got["causes"][0]["label"] == "task rtb-disturb:99" and got["causes"][0]["ns"] == 1000.0
    assert got["idle_ns"] == 1050.0
    # a wake-up from before the CPU went idle is not this idle stretch's: nothing placed
    stale = explain.timelines(_events(_idle_then_burn(400)))[1]
    assert stale.inferred == []
