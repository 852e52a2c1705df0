"""linkvet's measuring engine: probe methods, the paced runner, the result store, the scheduler and analysis.

Imports neither Qt nor `catalogs`; the CLI and the desktop app compose it.
"""

from probes._version import __version__

__all__ = ["__version__"]
