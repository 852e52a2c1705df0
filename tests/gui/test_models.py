"""The Qt models, without a window: what a view would read from them."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

from desktop.app.chart_data import ChartTarget, chart_targets
from desktop.app.models.live_probe import LiveProbeModel
from desktop.app.models.stored_targets import StoredTargetsModel
from desktop.app.models.target_list import TargetListModel
from desktop.usecases.errors import ProbeListError
from desktop.usecases.probe_list import ProbeListFile, TargetEntry
from probes.errors import ErrorKind
from probes.results import ProbeResult, Sample
from probes.stats import summarize
from probes.store import StoredSeries
from probes.target import Method, Target, parse_target

DISPLAY = Qt.ItemDataRole.DisplayRole


def entry(text: str, **labels: str) -> TargetEntry:
    return TargetEntry(parse_target(text, **labels))


def test_target_list_adds_each_endpoint_once_and_reports_the_checked_ones(qapp) -> None:
    model = TargetListModel()
    assert model.add([entry("127.0.0.1"), entry("127.0.0.1"), entry("127.0.0.2:22", line_type="bgp")]) == 2
    assert model.add([entry("127.0.0.1")]) == 0
    assert model.rowCount() == 2
    assert model.data(model.index(1, TargetListModel.METHOD), DISPLAY) == "tcp"
    assert model.data(model.index(1, TargetListModel.ADDRESS), DISPLAY) == "127.0.0.2:22"
    assert model.data(model.index(1, TargetListModel.LINE_TYPE), DISPLAY) == "bgp"
    assert model.setData(model.index(0, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    assert [t.host for t in model.enabled_targets()] == ["127.0.0.2"]
    assert model.data(model.index(0, 0), Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked
    model.remove_rows([1])
    assert model.enabled_targets() == []


def test_target_book_round_trips_and_names_what_is_wrong(tmp_path) -> None:
    book = ProbeListFile(tmp_path / "targets.json")
    entries = [
        entry("198.18.100.1", provider="raksmart", region="los-angeles", line_type="cn2-gia"),
        TargetEntry(Target(Method.HTTP, url="https://example.com/x", name="probe file"), "catalog", False),
    ]
    book.save(entries)
    assert book.load() == entries
    data = json.loads(book.path.read_text())
    data["targets"][1]["url"] = "ftp://nope"
    book.path.write_text(json.dumps(data))
    with pytest.raises(ProbeListError, match=r"target 2: .*http:// or https://"):
        book.load()
    book.path.write_text(json.dumps({"version": 99, "targets": []}))
    with pytest.raises(ProbeListError, match="newer than this linkvet"):
        book.load()
    book.path.write_text("{not json")
    with pytest.raises(ProbeListError, match="not valid JSON"):
        book.load()
    aside = book.set_aside()
    assert aside.read_text() == "{not json" and not book.path.exists()


def test_live_model_summarises_samples_in_send_order_whatever_order_they_arrive(qapp) -> None:
    target = Target(Method.ICMP, host="127.0.0.1")
    model = LiveProbeModel()
    model.start([target], [5])
    rtts = {0: 10.0, 1: None, 2: 14.0, 3: 11.0}
    model.add_sample_objects([(target, Sample(seq, 1_000_000 * seq, rtts[seq])) for seq in (3, 0, 2, 1)])
    row = model.row(0)
    expected = summarize([rtts[s] for s in sorted(rtts)])
    assert row.summary == expected
    assert model.data(model.index(0, LiveProbeModel.PROGRESS), DISPLAY) == "4/5"
    assert model.data(model.index(0, LiveProbeModel.LOSS), DISPLAY) == "25.0%"
    assert model.data(model.index(0, LiveProbeModel.LAST), DISPLAY) == "lost"  # seq 1 arrived last
    spark = model.data(model.index(0, LiveProbeModel.TREND), LiveProbeModel.SparkRole)
    assert np.array_equal(spark, np.array([10.0, np.nan, 14.0, 11.0]), equal_nan=True)
    x, y = row.live_xy()
    assert list(x) == [0.0, 1.0, 2.0, 3.0] and math.isnan(y[1])
    assert model.data(model.index(0, LiveProbeModel.STATUS), DISPLAY) == "running"


def test_live_model_takes_the_result_as_truth_and_shows_errors_in_the_row(qapp) -> None:
    good = Target(Method.ICMP, host="127.0.0.1", port=22)
    bad = Target(Method.HTTP, url="http://127.0.0.1:9/")
    model = LiveProbeModel()
    model.start([good, bad], [2, 1])
    # ICMP not permitted here: the runner measured the TCP twin; its result comes back under the twin.
    twin = good.with_method(Method.TCP)
    model.add_samples([(good.key, 0, 5, 1.5, None)])
    assert model.row(0).rtts == {0: 1.5}
    metrics = {"backend": "portable", "timestamps": "user"}
    result = ProbeResult(
        twin, 0, 10, (Sample(0, 5, 1.5), Sample(1, 6, 2.5)), message="ICMP not permitted", metrics=metrics
    )
    model.finish_target(result)
    assert model.data(model.index(0, LiveProbeModel.METHOD), DISPLAY) == "tcp"
    # which probe backend measured it, and who timed it, in the method's tooltip
    tip = Qt.ItemDataRole.ToolTipRole
    assert model.data(model.index(0, LiveProbeModel.METHOD), tip) == "portable/user"
    assert model.data(model.index(0, LiveProbeModel.MEDIAN), DISPLAY) == "2.000"
    failed = ProbeResult(bad, 0, 10, error=ErrorKind.REFUSED, message="connection refused")
    model.finish_target(failed)
    status = model.data(model.index(1, LiveProbeModel.STATUS), DISPLAY)
    assert status == "error: refused — connection refused"
    assert model.data(model.index(1, LiveProbeModel.METHOD), tip) is None  # HTTP names no backend
    colour = model.data(model.index(1, LiveProbeModel.STATUS), Qt.ItemDataRole.ForegroundRole)
    assert colour.color().name() == "#c62828"


def test_stored_targets_keep_their_ticks_across_a_reload(qapp) -> None:
    def stored(i: int) -> ChartTarget:
        series = StoredSeries(
            i, f"icmp:10.0.0.{i}", f"t{i}", "icmp", f"10.0.0.{i}", None, None, "p", "r", "bgp", "shanghai"
        )
        return chart_targets([series])[0]

    model = StoredTargetsModel()
    model.set_targets([stored(1), stored(2), stored(3)])
    model.setData(model.index(1, 0), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    model.set_targets([stored(2), stored(3)])
    assert [t.id for t in model.checked()] == [2]
    assert model.data(model.index(0, StoredTargetsModel.REGION), DISPLAY) == "p/r"


def test_live_progress_counts_attempts_not_finished_targets(qapp) -> None:
    """Two targets of 10 attempts half done read 10 of 20, not 0 of 2 (the bar moved only when a target
    ended); a finished target counts whole."""
    model = LiveProbeModel()
    a, b = Target(Method.ICMP, host="127.0.0.1"), Target(Method.ICMP, host="127.0.0.2")
    model.start([a, b], [10, 10])
    assert model.attempts() == (0, 20)
    model.add_samples([(t.key, seq, 1_000 + seq, 0.05, None) for t in (a, b) for seq in range(5)])
    assert model.attempts() == (10, 20)
    samples = [Sample(seq, 1_000 + seq, 0.05) for seq in range(7)]  # it ended early: its result stands
    model.finish_target(ProbeResult(a, 1_000, 2_000, samples=samples, error=ErrorKind.TIMEOUT, message="x"))
    assert model.attempts() == (15, 20)


def test_the_probe_lists_own_words_are_shown_in_the_windows_language(qapp) -> None:
    model = TargetListModel()
    model.set_entries(
        [
            TargetEntry(Target(Method.ICMP, host="127.0.0.1", name="loopback (this computer)")),
            TargetEntry(parse_target("198.18.0.1"), origin="plan:stress"),
            TargetEntry(parse_target("198.18.0.2"), origin="catalog"),
        ]
    )
    model.shown_names["loopback (this computer)"] = "环回地址（本机）"
    model.origin_words.update({"plan:": "计划 {name}", "catalog": "服务商名录", "custom": "自定义"})
    names = [model.index(r, TargetListModel.NAME).data(DISPLAY) for r in range(3)]
    origins = [model.index(r, TargetListModel.ORIGIN).data(DISPLAY) for r in range(3)]
    assert names[0] == "环回地址（本机）" and origins == ["自定义", "计划 stress", "服务商名录"]
    assert model.entry(0).target.name == "loopback (this computer)"  # the file keeps its own words


def test_a_contradicted_fact_is_marked_in_its_cell(qapp) -> None:
    from desktop.app.models.offerings import OfferingsModel

    contradicted = {
        "fact": "offering.inter_node.fabric",
        "standing": "contradicted",
        "source": "contradicted on h100-pcie at 2026-12-01 by linkvet accept",
    }
    verified = {"fact": "offering.intra_node.kind", "standing": "verified", "source": "verified on h100-pcie"}
    row = {
        "provider": "trialco",
        "id": "h100-sxm-8x",
        "intra_node": {"kind": "pcie", "bandwidth_gbytes_s": 128},
        "inter_node": {"fabric": "infiniband", "bandwidth_gbit_s": 3200},
        "fact_sources": {c["fact"]: c for c in (contradicted, verified)},
    }
    model = OfferingsModel()
    model.set_rows([row])
    fabric = model.index(0, OfferingsModel.FABRIC)
    intra = model.index(0, OfferingsModel.INTRA)
    assert fabric.data(DISPLAY).endswith("✗") and "contradicted on h100-pcie" in fabric.data(
        Qt.ItemDataRole.ToolTipRole
    )
    assert fabric.data(Qt.ItemDataRole.ForegroundRole) is not None
    assert "✗" not in intra.data(DISPLAY) and intra.data(Qt.ItemDataRole.ForegroundRole) is None
