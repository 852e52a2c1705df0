"""English and Simplified Chinese: switching at run time retranslates every built screen; the shipped
translations are complete and their compiled form is current."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.app.i18n import TRANSLATIONS_DIR, qm_path

DISPLAY = Qt.ItemDataRole.DisplayRole


def nav_texts(window) -> list[str]:  # type: ignore[no-untyped-def]
    return [window.nav.item(i).text() for i in range(window.nav.count())]


def test_switching_language_retranslates_the_window_and_is_remembered(window, qtbot, qsettings) -> None:
    probe = window.go_to("probe")
    assert nav_texts(window)[:4] == ["Evaluation", "Targets", "Probe", "Charts"]
    window.language_actions["zh_CN"].trigger()
    assert window.language.code == "zh_CN"
    qtbot.waitUntil(lambda: nav_texts(window)[1:4] == ["目标", "探测", "图表"])  # LanguageChange is posted
    assert probe.run_button.text() == "立即运行"
    assert probe.model.headerData(probe.model.STATUS, Qt.Orientation.Horizontal, DISPLAY) == "状态"
    assert window.file_menu.title() == "文件(&F)"
    qsettings.sync()
    assert qsettings.value("display/language") == "zh_CN"
    # A screen built after the switch comes up in the new language too.
    charts = window.go_to("charts")
    assert charts.tabs.tabText(0) == "时间线"
    window.language_actions["en"].trigger()
    qtbot.waitUntil(lambda: nav_texts(window)[1:4] == ["Targets", "Probe", "Charts"])
    assert charts.tabs.tabText(0) == "Timeline" and probe.run_button.text() == "Run now"


def test_chinese_text_renders_with_a_cjk_font(window, qtbot) -> None:
    from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics

    if not any("CJK" in family for family in QFontDatabase.families()):
        pytest.skip("no CJK font installed (apt-get install fonts-noto-cjk; .ci/run installs it)")
    window.set_language("zh_CN")
    label = window.go_to("targets").title
    qtbot.waitUntil(lambda: label.text() == "目标")
    metrics = QFontMetrics(label.font())
    assert all(metrics.inFontUcs4(ord(ch)) or _fallback_has(ch, label.font()) for ch in label.text())
    image = label.grab().toImage()
    dark = sum(
        1
        for x in range(image.width())
        for y in range(image.height())
        if image.pixelColor(x, y).lightness() < 100
    )
    assert dark > 50  # glyphs were drawn, not empty boxes of background
    _ = QFont


def _fallback_has(ch: str, font) -> bool:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QFontDatabase, QFontMetrics

    fallback = QFontDatabase.font("Noto Sans CJK SC", "Regular", font.pointSize())
    return QFontMetrics(fallback).inFontUcs4(ord(ch))


def test_every_translation_is_finished() -> None:
    for ts in TRANSLATIONS_DIR.glob("*.ts"):
        unfinished = [
            m.findtext("source")
            for m in ET.parse(ts).getroot().iter("message")
            if m.find("translation").get("type") in ("unfinished", "vanished", "obsolete")
        ]
        assert not unfinished, f"{ts.name}: untranslated: {unfinished}"


def test_compiled_translations_are_current(tmp_path: Path) -> None:
    lrelease = shutil.which("pyside6-lrelease")
    if lrelease is None:
        pytest.skip("pyside6-lrelease not on PATH (it comes with the PySide6 wheel)")
    for ts in TRANSLATIONS_DIR.glob("*.ts"):
        fresh = tmp_path / ts.with_suffix(".qm").name
        subprocess.run([lrelease, str(ts), "-qm", str(fresh)], check=True, capture_output=True)
        assert fresh.read_bytes() == qm_path(ts.stem.removeprefix("linkvet_")).read_bytes(), (
            f"{ts.name} changed since its .qm was compiled: run python packaging/update_translations.py"
        )


def test_every_tr_string_in_the_code_is_in_the_translation_file(tmp_path: Path) -> None:
    lupdate = shutil.which("pyside6-lupdate")
    if lupdate is None:
        pytest.skip("pyside6-lupdate not on PATH (it comes with the PySide6 wheel)")
    ts = tmp_path / "fresh.ts"
    app = Path(__file__).resolve().parents[2] / "desktop" / "app"
    subprocess.run(
        [lupdate, *map(str, sorted(app.rglob("*.py"))), "-ts", str(ts)], check=True, capture_output=True
    )
    in_code = {
        (c.findtext("name"), m.findtext("source")) for c in ET.parse(ts).getroot() for m in c.iter("message")
    }
    shipped = {
        (c.findtext("name"), m.findtext("source"))
        for c in ET.parse(TRANSLATIONS_DIR / "linkvet_zh_CN.ts").getroot()
        for m in c.iter("message")
    }
    assert in_code <= shipped, (
        f"run python packaging/update_translations.py: missing {sorted(in_code - shipped)}"
    )


def _hidden_from_lupdate(tree: ast.AST) -> list[tuple[int, str]]:
    """tr()/translate() calls `pyside6-lupdate` cannot extract: inside an f-string, or with a source text
    that is not a string literal (except the checklist titles, listed with QT_TRANSLATE_NOOP)."""
    in_fstring = {
        id(node)
        for joined in ast.walk(tree)
        if isinstance(joined, ast.JoinedStr)
        for node in ast.walk(joined)
        if isinstance(node, ast.Call)
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", None))
        if name not in ("tr", "translate"):
            continue
        text_at = 1 if name == "translate" else 0
        args = node.args
        literal = (
            len(args) > text_at
            and isinstance(args[text_at], ast.Constant)
            and isinstance(args[text_at].value, str)
        )
        listed = (
            name == "translate"
            and args
            and isinstance(args[0], ast.Constant)
            and args[0].value in DYNAMIC_CONTEXTS
        )
        if id(node) in in_fstring or not (literal or listed):
            found.append((node.lineno, ast.unparse(node)))
    return found


DYNAMIC_CONTEXTS = {"Checklist"}  # a context whose texts are listed elsewhere (none in the app today)


def test_no_tr_call_is_hidden_from_the_translation_tool() -> None:
    app = Path(__file__).resolve().parents[2] / "desktop" / "app"
    hidden = {
        f"{path.relative_to(app)}:{line}: {call}"
        for path in sorted(app.rglob("*.py"))
        for line, call in _hidden_from_lupdate(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert not hidden, "move these out of f-strings / use a literal text:\n" + "\n".join(sorted(hidden))


def test_the_scan_finds_what_lupdate_misses() -> None:
    sample = (
        "a = f\"<b>{self.tr('Service')}</b>\"\n"
        "b = self.tr(name)\n"
        "c = self.tr('fine') + f'{x}'\n"
        "d = QCoreApplication.translate('Checklist', title)\n"
        "e = QCoreApplication.translate('Other', title)\n"
    )
    assert sorted(line for line, _ in _hidden_from_lupdate(ast.parse(sample))) == [1, 2, 5]


def test_catalog_details_are_translated(window, qtbot) -> None:
    catalog = window.go_to("catalog")
    qtbot.waitUntil(lambda: catalog.model.rowCount() > 0, timeout=20_000)
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: catalog.title.text() == "服务商名录")
    # lambda: a GPU with a reference entry, regions with endpoints; raksmart: a service section.
    for provider, chinese in (
        ("lambda", ("GPU 参考", "的区域", "个探测端点", "未说明")),
        ("raksmart", ("服务",)),
    ):
        catalog.search.setText(provider)
        catalog.table.selectRow(0)
        text = catalog.detail.toPlainText()
        for english in ("GPU reference", "Regions of", "probe endpoint", "Service"):
            assert english not in text, provider
        for word in chinese:
            assert word in text, (provider, word)


def test_the_switch_puts_the_cores_messages_in_the_same_language(window, qtbot) -> None:
    """Verdicts, doubts, reasons and errors come from the core's gettext domains: they follow the window's
    language switch (and the probing child processes get it in LANGUAGE)."""
    from desktop.i18n import current_language
    from probes.routes import class_name
    from probes.routes.names import claim_name

    assert class_name("cu-premium") == "China Unicom premium (9929/10099)"
    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: current_language() == "zh_CN")
    assert class_name("cu-premium") == "联通精品线路（9929/10099）"
    assert claim_name("standard") == "普通线路"
    assert class_name("cn2-gia") == "CN2 GIA"  # a name, not a sentence: the same in both
    window.set_language("en")
    qtbot.waitUntil(lambda: current_language() == "en")
    assert class_name("cu-premium") == "China Unicom premium (9929/10099)"


def test_no_label_loses_a_character_to_a_mnemonic(window, qtbot) -> None:
    """A lone "&" in a button, check box, group box or tab text marks a shortcut and is not drawn
    ("Needs & score" showed as "Needs _score"): such texts must write "&&"."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QTabBar

    for key in ("targets", "probe", "charts", "routes", "catalog", "score", "export"):
        window.go_to(key)
    for code, title in (("en", "Needs & score"), ("zh_CN", "需求与评分")):
        window.set_language(code)
        qtbot.waitUntil(lambda title=title: window.screens["score"].title.text() == title)
        texts = [b.text() for b in window.findChildren(QAbstractButton)]
        texts += [g.title() for g in window.findChildren(QGroupBox)]
        texts += [bar.tabText(i) for bar in window.findChildren(QTabBar) for i in range(bar.count())]
        marked = [t for t in texts if not QKeySequence.mnemonic(t).isEmpty()]
        assert not marked, f"{code}: {marked}"
        if code == "en":
            assert "Needs & score" in window.screens["export"].with_ranking.text().replace("&&", "&")


_ENGLISH_WORDS = re.compile(r"\b[A-Za-z]{2,}\b(?: +[a-z]{2,}\b){2,}")  # three words of English in a row
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _shown_texts(widget) -> Iterator[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """What a person reads on a widget and its children: labels, buttons, titles, tabs, headers, items,
    placeholders and tooltips."""
    from PySide6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QGroupBox,
        QLabel,
        QLineEdit,
        QTableView,
        QTabWidget,
        QTreeView,
        QWidget,
    )

    for child in [widget, *widget.findChildren(QWidget)]:
        name = f"{type(child).__name__} {child.objectName()}".strip()
        texts = [child.toolTip()]
        if isinstance(child, (QLabel, QAbstractButton)):
            texts.append(child.text())
        if isinstance(child, QGroupBox):
            texts.append(child.title())
        if isinstance(child, QLineEdit):
            texts.append(child.placeholderText())
        if isinstance(child, QTabWidget):
            texts += [child.tabText(i) for i in range(child.count())]
        if isinstance(child, QComboBox):
            texts += [child.itemText(i) for i in range(child.count())]
        if isinstance(child, (QTableView, QTreeView)) and child.model() is not None:
            model = child.model()
            texts += [
                str(model.headerData(c, Qt.Orientation.Horizontal, DISPLAY) or "")
                for c in range(model.columnCount())
            ]
        for text in texts:
            if text:
                yield name, text


def test_every_screen_reads_in_chinese(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Each screen, built in Chinese, shows no sentence of English: a string left out of tr() or of the
    translation file shows up here by screen and widget (names, URLs and data stay as they are)."""
    window.language_actions["zh_CN"].trigger()
    qtbot.waitUntil(lambda: nav_texts(window)[:2] == ["评估", "目标"])
    english = []
    for spec in window.specs:
        screen = window.go_to(spec.key)
        for where, text in _shown_texts(screen):
            plain = re.sub(r"<[^>]+>|https?://\S+|`[^`]*`", " ", text)
            if _ENGLISH_WORDS.search(plain) and not _CJK.search(plain):
                english.append(f"{spec.key}: {where}: {text!r}")
    for dialog in _dialogs(window):
        qtbot.addWidget(dialog)
        for where, text in _shown_texts(dialog):
            plain = re.sub(r"<[^>]+>|https?://\S+|`[^`]*`", " ", text)
            if _ENGLISH_WORDS.search(plain) and not _CJK.search(plain):
                english.append(f"{type(dialog).__name__}: {where}: {text!r}")
    assert not english, "\n".join(english)


def test_a_bad_peak_window_is_refused_in_chinese(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The settings dialog's refusal names the entry and says what is wrong in the window's language."""
    from desktop.app.settings_dialog import SettingsDialog

    window.language_actions["zh_CN"].trigger()
    qtbot.waitUntil(lambda: nav_texts(window)[:2] == ["评估", "目标"])
    dialog = SettingsDialog(window.context.settings)
    qtbot.addWidget(dialog)
    dialog.peak.setPlainText("20:00-23:00 Asia/Shanghai\n25:00-26:00 Asia/Shanghai")
    dialog.accept()
    text = dialog.error.text()
    assert text.startswith("第 2 个高峰时段："), text
    assert _CJK.search(text.removeprefix("第 2 个高峰时段：")) and "peak window" not in text, text


def _dialogs(window) -> list[object]:  # type: ignore[no-untyped-def]
    from catalogs.loader import load_catalogs
    from desktop.app.catalog_targets_dialog import CatalogTargetsDialog
    from desktop.app.evaluation_wizard import EvaluationWizard
    from desktop.app.offering_form import OfferingForm
    from desktop.app.questionnaire_dialogs import QuestionnaireExportDialog
    from desktop.app.settings_dialog import SettingsDialog
    from desktop.app.target_dialog import TargetDialog

    catalogs = load_catalogs()
    provider = catalogs.providers[0].provider.id
    return [
        SettingsDialog(window.context.settings),
        TargetDialog(),
        CatalogTargetsDialog(catalogs),
        QuestionnaireExportDialog(window.context, catalogs, provider),
        OfferingForm(window.context, catalogs, provider),
        EvaluationWizard(window.context, catalogs, []),
    ]


def test_the_probe_table_shows_its_chinese_headers_whole(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Fixed column widths grow to their header in the current language ("中位数（毫秒）" was cut off at 80 px),
    switched at run time too."""
    probe = window.go_to("probe")
    window.language_actions["zh_CN"].trigger()
    qtbot.waitUntil(lambda: probe.run_button.text() == "立即运行")
    header = probe.table.horizontalHeader()
    short = [
        (probe.model.headerData(c, Qt.Orientation.Horizontal, DISPLAY), header.sectionSize(c))
        for c in range(probe.model.STATUS)
        if header.sectionSize(c) < header.sectionSizeHint(c)
    ]
    assert not short, short
    assert header.sectionSize(probe.model.MEDIAN) > 80


def test_qts_own_dialogs_speak_chinese_too(window, qtbot) -> None:
    """Qt's file dialog ("Look in:", "Files of type:") and standard buttons come from Qt's own translations
    (qtbase_zh_CN.qm in PySide6's folder), installed with the window's."""
    from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QLabel

    window.set_language("zh_CN")
    qtbot.waitUntil(lambda: window.file_menu.title() == "文件(&F)")
    dialog = QFileDialog(window, "x")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setNameFilter("Excel (*.xlsx)")
    texts = {label.text() for label in dialog.findChildren(QLabel) if label.text()}
    assert {"查找范围(&L)：", "文件类型(&T)：", "文件名称(&N)："} <= texts, texts
    assert all(re.search("[\u4e00-\u9fff]", text) for text in texts), texts  # nothing left in English
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    assert buttons.button(QDialogButtonBox.StandardButton.Cancel).text() == "取消"
    window.set_language("en")
    qtbot.waitUntil(lambda: window.file_menu.title() == "&File")
    again = QFileDialog(window, "x")
    again.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    assert "&Look in:" in {label.text() for label in again.findChildren(QLabel)}
