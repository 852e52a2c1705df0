"""The Catalog screen's details of an offering: an unknown fact shows as "?" in its place."""

from __future__ import annotations


def test_an_unknown_cpu_keeps_its_place(window, qtbot) -> None:
    catalog = window.go_to("catalog")
    qtbot.waitUntil(lambda: catalog.model.rowCount() > 0, timeout=20_000)
    catalog.search.setText("p5.48xlarge")  # AWS states vCPUs and memory, not the CPU model
    catalog.table.selectRow(0)
    row = catalog.selected_row()
    assert row["id"] == "p5.48xlarge" and row.get("cpu") is None
    lines = catalog.detail.toPlainText().splitlines()
    value = lines[lines.index("CPU / vCPUs / RAM GiB") + 1]  # a table row: the label's cell, then the value's
    assert value == f"? / {row['vcpus']} / {row['ram_gib']:g}"
