"""linkvet's two faces over the Qt-free core: the headless `linkvet` command (`desktop.cli`, no Qt)
and the PySide6 desktop application.

This module imports nothing, so `desktop.cli` stays free of Qt.
"""
