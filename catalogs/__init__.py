"""Provider GPU catalogs, the GPU reference, training-needs sizing, the documents' checklist and scoring.

Imports neither Qt nor `probes`: measured line quality comes in as plain `LinkSummary` objects.

Where things are:
    providers/*.toml, gpus.toml, checklist.toml, needs/*.toml   the data files (edit these)
    schema.py, facts.py      what a catalog file may say; every fact with source and as_of
    loader.py                read and validate catalogs (errors with file, line, field, expected)
    _toml.py                 the one reader of every file catalogs reads (regular files only, bounded,
                             nesting and numbers checked by `probes.files.textinput`, which `probes` reads through too)
    overlay.py               a user's overlay: facts by key with provenance, standing and history, merged
                             over a catalog and validated with the loader's rules
    user.py                  the user's catalog folder; bundled + user catalogs (`load_with_user`), the
                             team's facts over them (`TeamFacts`)
    evaluation/              the evaluation: its versioned document (`model.py`), its candidates against the
                             catalogs (`candidates.py`), format 2's cadence and alert rules (`alerting.py`)
    team.py                  a team's vendor facts as records (a shared store's): replayed into overlays,
                             the offices' conflicts, an overlay's changes back into records
    questionnaire/           the vendor questionnaire's questions, and answers → catalog values
    gpus.py                  the GPU reference table
    targets.py               a region's probe targets, as plain dicts
    skypilot.py              SkyPilot CSV → provider catalog (`skypilot_rows.py`: rows read as they are,
                             real catalogs' quirks corrected against the GPU reference)
    needs.py, sizing.py      training-needs profiles and the sizing formulas (with sources)
    prices.py                price per GPU-hour from any listed price, monthly cost, budget currency
    checklist.py             the checklist: gates and weighted criteria, their weights and parameters
    scoring/                 the explainable ranking (`rank_offerings`; its `__init__` maps the package)
    link_quality.py          `LinkSummary` (with its `RouteCheck`), the one input scoring takes from measurement
    acceptance/              `linkvet accept`: a server's measured facts against its offering's claims
    errors.py                the exception tree
    i18n.py, locale/         messages for people through gettext (`_`, `ngettext`, `N_`), zh_CN translations
"""
