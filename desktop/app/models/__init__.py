"""Qt item models the screens read; they hold plain values handed to them, never a database connection.

    _table.py          HeaderedTableModel: the headers every table model shares (translated by its screen)
    target_list.py     the probe list (Targets screen); its file is `desktop.usecases.probe_list`'s
    live_probe.py      the running probe's live rows (Probe screen)
    stored_targets.py  the targets the store has measurements for (Charts screen)
    offerings.py       one row per catalog offering and its filter proxy (Catalog screen)
    ranking.py         the ranked candidates and the selected one's breakdown (Needs & score screen)

The probe-list, live and stored-targets models are unit-tested without a window
(`tests/gui/test_models.py`); the offerings and ranking models through their screens.
"""
