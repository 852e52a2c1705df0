"""Packaging tests: the recipes, the service definitions and the hosted-CI workflow, checked here; the built
programs when LINKVET_INSTALLERS names a build (test_frozen.py). Qt renders the icons offscreen."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
