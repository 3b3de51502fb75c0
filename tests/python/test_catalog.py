# SPDX-License-Identifier: Apache-2.0
"""The scenario catalog and selection patterns."""

from conftest import read_jsonl
from rtbench.model import catalog
from rtbench.model.catalog import CoreScenario


def core_catalog() -> list[CoreScenario]:
    return [
        CoreScenario.from_record(r) for r in read_jsonl("core-list.jsonl") if r["type"] == "catalog"
    ]


def test_spec_ids_are_unique_and_well_formed() -> None:
    ids = [e.id for e in catalog.SPEC]
    assert len(ids) == len(set(ids))
    families = {f for f, _ in catalog.FAMILIES}
    for e in catalog.SPEC:
        assert e.family in families, e.id
        assert e.kind in ("B", "P", "S", "-"), e.id
        assert e.description and not e.description.endswith("."), e.id
        if e.label:
            assert "_" not in e.label, e.id
            assert catalog.kind_of_label(e.label) == e.kind, e.id


def test_spec_covers_every_family_of_the_specification() -> None:
    by_family = {f: [e for e in catalog.SPEC if e.family == f] for f, _ in catalog.FAMILIES}
    assert all(by_family.values())
    for id_ in ("cal.timestamp", "clk.tick.duration", "thr.switch.yield", "sem.signal.unblock",
                "mut.behavior.pi", "mq.receive.block", "evt.wait.block", "sched.coop.switch",
                "irq.sustained", "os.noise", "mem.behavior.leak", "tm.mem", "rh.msg_latency",
                "ipc.pi.stress"):  # fmt: skip
        assert id_ in catalog.SPEC_BY_ID


def test_merged_marks_what_the_build_implements() -> None:
    listed = {item.entry.id: item for item in catalog.merged(core_catalog())}
    assert listed["sem.signal.unblock"].unit == "sem.wait.block"
    assert listed["cal.timestamp"].unit == "cal.timestamp"
    assert listed["irq.sustained"].unit is None


def test_ids_only_the_core_knows_are_listed() -> None:
    extra = CoreScenario(
        "zz.new", (catalog.CatalogId("zz.new", "ZZ-P-NEW"),), "A new one", {}, {}, (), True
    )
    listed = catalog.merged([*core_catalog(), extra])
    assert listed[-1].entry.id == "zz.new"
    assert listed[-1].entry.kind == "P"
    assert "zz.new" in catalog.render(listed)


def test_no_pattern_selects_everything() -> None:
    selection, unmatched = catalog.select(core_catalog(), [])
    assert unmatched == []
    assert [u.name for u in selection.units] == [u.name for u in core_catalog()]
    assert len(selection.missing) == len(catalog.SPEC) - 5


def test_glob_on_ids() -> None:
    selection, unmatched = catalog.select(core_catalog(), ["sem.*"])
    assert unmatched == []
    assert [u.name for u in selection.units] == ["sem.wait.available", "sem.wait.block"]
    assert {e.id for e in selection.missing} >= {"sem.create", "sem.behavior.lock"}
    assert all(e.id.startswith("sem.") for e in selection.missing)


def test_labels_match_case_insensitively() -> None:
    selection, _ = catalog.select(core_catalog(), ["sem-p-arc"])
    assert [u.name for u in selection.units] == ["sem.wait.block"]
    assert selection.missing == ()


def test_label_without_variant_matches_every_variant() -> None:
    selection, unmatched = catalog.select(core_catalog(), ["THR-P-NEW"])
    assert unmatched == []
    assert {e.id for e in selection.missing} == {
        "thr.create.never_run", "thr.create.run_terminate", "thr.create.run_block"
    }  # fmt: skip


def test_one_id_selects_its_whole_run_unit() -> None:
    selection, _ = catalog.select(core_catalog(), ["sem.signal.unblock"])
    assert [u.name for u in selection.units] == ["sem.wait.block"]


def test_unknown_patterns_are_returned() -> None:
    _, unmatched = catalog.select(core_catalog(), ["sem.*", "nothing.here*", "XYZ-P-ABC"])
    assert unmatched == ["nothing.here*", "XYZ-P-ABC"]


def test_list_json_has_every_id() -> None:
    data = catalog.to_json(catalog.merged(core_catalog()))
    assert len(data) == len(catalog.SPEC)
    implemented = {d["id"] for d in data if d["implemented"]}
    assert implemented == {
        "cal.timestamp", "sem.wait.available", "sem.signal.no_waiter",
        "sem.wait.block", "sem.signal.unblock",
    }  # fmt: skip
