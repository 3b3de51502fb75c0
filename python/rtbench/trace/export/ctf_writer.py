# SPDX-License-Identifier: Apache-2.0
"""Write a CTF trace with babeltrace2's Python bindings (Debian python3-bt2).

Run as a script by Debian's /usr/bin/python3 (the only Python the bindings exist for),
never imported by rtbench: `ctf_writer.py EVENTS.jsonl OUTDIR`. EVENTS.jsonl starts with
a header line {"frequency": Hz, "env": {...}} followed by one line per event,
{"cpu": N, "ts": T, "name": "...", "fields": {"key": int or str}}, in time order. One
stream per CPU (packet context `cpu_id`, as LTTng's kernel traces have), one event
class per name whose payload holds the fields of its first event (integers as signed
64-bit, text as strings). A source component of this file feeds `sink.ctf.fs`; the
metadata is written when the graph is destroyed, at the end of main().
"""

import json
import sys
from pathlib import Path
from typing import Any

import bt2  # type: ignore[import-not-found]


def _read(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with Path(path).open(encoding="utf-8") as f:
        header = json.loads(f.readline())
        events = [json.loads(line) for line in f if line.strip()]
    return header, events


class _Iterator(bt2._UserMessageIterator):  # type: ignore[misc]
    def __init__(self, config: Any, port: Any) -> None:
        data = port.user_data
        self._messages = self._generate(data)

    def _generate(self, data: dict[str, Any]) -> Any:
        trace = data["trace_class"]()
        for key, value in data["env"].items():
            trace.environment[key] = value
        streams = {}
        packets = {}
        for cpu in data["cpus"]:
            stream = trace.create_stream(data["stream_class"])
            packet = stream.create_packet()
            packet.context_field["cpu_id"] = cpu
            streams[cpu], packets[cpu] = stream, packet
            yield self._create_stream_beginning_message(stream)
            yield self._create_packet_beginning_message(packet)
        for e in data["events"]:
            ec = data["classes"][e["name"]]
            msg = self._create_event_message(ec, packets[e["cpu"]], e["ts"])
            payload = msg.event.payload_field
            for key, value in e["fields"].items():
                if key in ec.payload_field_class:
                    payload[key] = value
            yield msg
        for cpu in data["cpus"]:
            yield self._create_packet_end_message(packets[cpu])
            yield self._create_stream_end_message(streams[cpu])

    def __next__(self) -> Any:
        return next(self._messages)


class _Source(bt2._UserSourceComponent, message_iterator_class=_Iterator):  # type: ignore[misc,call-arg]
    def __init__(self, config: Any, params: Any, obj: Any) -> None:
        header, events = obj
        tc = self._create_trace_class()
        clock = self._create_clock_class(
            frequency=int(header["frequency"]), name="monotonic", origin_is_unix_epoch=False
        )
        context = tc.create_structure_field_class()
        context.append_member("cpu_id", tc.create_unsigned_integer_field_class(32))
        sc = tc.create_stream_class(
            name="kernel",
            default_clock_class=clock,
            supports_packets=True,
            packet_context_field_class=context,
        )
        classes = {}
        for e in events:
            if e["name"] in classes:
                continue
            payload = tc.create_structure_field_class()
            for key, value in e["fields"].items():
                if isinstance(value, int):
                    payload.append_member(key, tc.create_signed_integer_field_class(64))
                else:
                    payload.append_member(key, tc.create_string_field_class())
            classes[e["name"]] = sc.create_event_class(name=e["name"], payload_field_class=payload)
        for e in events:
            for key, value in e["fields"].items():
                if not isinstance(value, int):
                    e["fields"][key] = str(value)
        cpus = sorted({e["cpu"] for e in events}) or [0]
        data = {
            "trace_class": tc,
            "stream_class": sc,
            "classes": classes,
            "events": events,
            "cpus": cpus,
            "env": header.get("env", {}),
        }
        self._add_output_port("out", data)


def main() -> int:
    header, events = _read(sys.argv[1])
    graph = bt2.Graph()
    src = graph.add_component(_Source, "rtbench", obj=(header, events))
    sink_class = bt2.find_plugin("ctf").sink_component_classes["fs"]
    sink = graph.add_component(
        sink_class, "sink", params={"path": sys.argv[2], "assume-single-trace": True}
    )
    graph.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    graph.run()
    del graph, src, sink  # the metadata is written now
    return 0


if __name__ == "__main__":
    sys.exit(main())
