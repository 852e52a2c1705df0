"""The evaluation: the one shortlist the team decides on — its job (a needs profile), offices, peak windows
and candidates (provider, region, offering, test endpoints) — and how it meets the catalogs.

Where things are
    model.py        `Evaluation`, `Office`, `Candidate`; the versioned TOML document (`to_toml`,
                    `parse_evaluation`), names and endpoints checked
    candidates.py   the candidates against the catalogs: ids checked (the nearest named), the offerings each
                    stands for, the catalogs narrowed to them, the addresses each is measured at
"""
