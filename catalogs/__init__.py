"""Provider GPU catalogs, the GPU reference, training-needs sizing, the documents' checklist and scoring.

Imports neither Qt nor `probes`: measured line quality comes in as plain `LinkSummary` objects.
"""
