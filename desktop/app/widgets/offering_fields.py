"""The offering form's editors, one per kind of question (`catalogs.questionnaire.Question.kind`): a number
(a spin box whose arrows keep to the question's range), a choice or yes/no (a drop-down list of the allowed
values), several choices (a list to tick), free text.

Every editor can be empty (the fact is not stated: unknown) and hands the form what was typed, as typed
(`text_value`): the loader's rules judge it (`desktop.usecases.user_catalogs.check_offering`), so a number
field takes any text — "-1" or "eight" are shown with the loader's message next to the field, not silently
refused by the widget. `signals.edited` fires on every change after the form set the current value.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit, QListWidget, QListWidgetItem, QWidget

from catalogs.questionnaire import Question, shown


def number_text(value: float) -> str:
    """A number as the field shows it (no trailing zeros, no exponent for the figures catalogs hold)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


class EditorSignals(QObject):
    edited = Signal()


class NumberEditor(QDoubleSpinBox):
    """A number or whole number: the arrows (and Up/Down keys) step inside the question's range; typing is
    free, and the text typed is what the form checks."""

    def __init__(self, question: Question, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.signals = EditorSignals(self)
        self._raw = ""
        whole = question.kind == "integer"
        self.setDecimals(0 if whole else 6)
        low = -1e12 if question.minimum is None else float(question.minimum)
        high = 1e12 if question.maximum is None else float(question.maximum)
        self.setRange(low, high)
        self.setSingleStep(1)
        self.setKeyboardTracking(True)
        self.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.UpDownArrows)
        self.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.lineEdit().setText("")
        self.lineEdit().textEdited.connect(lambda _text: self.signals.edited.emit())

    # Qt asks these to judge and convert the text: every text is acceptable here (the loader judges it),
    # and the text shown is always the one typed, so nothing the user typed is replaced behind their back.
    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        self._raw = text
        return QValidator.State.Acceptable, text, pos

    def fixup(self, text: str) -> str:
        return text

    def valueFromText(self, text: str) -> float:
        number = _parse(text)
        return self.value() if number is None else number

    def textFromValue(self, value: float) -> str:
        return self._raw

    def stepEnabled(self) -> QDoubleSpinBox.StepEnabledFlag:
        number = _parse(self._raw)
        flags = QDoubleSpinBox.StepEnabledFlag.StepNone
        if number is None or number < self.maximum():
            flags |= QDoubleSpinBox.StepEnabledFlag.StepUpEnabled
        if number is None or number > self.minimum():
            flags |= QDoubleSpinBox.StepEnabledFlag.StepDownEnabled
        return flags

    def stepBy(self, steps: int) -> None:
        number = _parse(self._raw)
        if number is None:  # from empty (or text): the first whole number in range
            new = float(math.ceil(self.minimum()))
        else:
            new = min(max(number + steps * self.singleStep(), self.minimum()), self.maximum())
        self._set_text(number_text(new))
        self.signals.edited.emit()

    def _set_text(self, text: str) -> None:
        self._raw = text
        self.lineEdit().setText(text)

    def set_value(self, value: Any) -> None:
        self._set_text("" if value is None else number_text(value) if _is_number(value) else str(value))

    def text_value(self) -> str | None:
        return self._raw.strip() or None

    def set_placeholder(self, text: str) -> None:
        self.lineEdit().setPlaceholderText(text)


class ChoiceEditor(QComboBox):
    """One of the allowed values (a choice, yes/no), or none (not stated). A current value the list does not
    hold (a catalog's own spelling of a GPU) is kept as an item of its own."""

    def __init__(self, question: Question, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.signals = EditorSignals(self)
        self.addItem("", None)
        for value in question.allowed:
            self.addItem(value, value)
        self.setMaxVisibleItems(16)
        # connected after the form set the current value: every change from here on is the user's
        self.currentIndexChanged.connect(lambda _index: self.signals.edited.emit())

    def set_value(self, value: Any) -> None:
        text = None if value is None else shown(value)
        index = self.findData(text)
        if index < 0 and text is not None:
            self.addItem(text, text)
            index = self.count() - 1
        self.setCurrentIndex(max(index, 0))

    def text_value(self) -> str | None:
        data = self.currentData()
        return None if data is None else str(data)

    def set_placeholder(self, text: str) -> None:
        self.setItemText(0, text)


class ChoicesEditor(QListWidget):
    """Several of the allowed values (an offering's regions), ticked."""

    def __init__(self, question: Question, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.signals = EditorSignals(self)
        for value in question.allowed:
            self._add(value)
        rows = min(max(self.count(), 1), 4)
        self.setFixedHeight(
            rows * (self.sizeHintForRow(0) if self.count() else 20) + 2 * self.frameWidth() + 2
        )
        self.itemChanged.connect(lambda _item: self.signals.edited.emit())

    def _add(self, value: str) -> QListWidgetItem:
        item = QListWidgetItem(value, self)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Unchecked)
        return item

    def set_value(self, value: Any) -> None:
        wanted = [shown(v) for v in value] if isinstance(value, list | tuple) else []
        self.blockSignals(True)
        known = {self.item(i).text(): self.item(i) for i in range(self.count())}
        for text in wanted:
            if text not in known:
                known[text] = self._add(text)
        for text, item in known.items():
            item.setCheckState(Qt.CheckState.Checked if text in wanted else Qt.CheckState.Unchecked)
        self.blockSignals(False)

    def checked(self) -> list[str]:
        return [
            self.item(i).text()
            for i in range(self.count())
            if self.item(i).checkState() == Qt.CheckState.Checked
        ]

    def set_checked(self, value: str, on: bool = True) -> None:
        """Tick (or untick) one value, as a click does."""
        for i in range(self.count()):
            if self.item(i).text() == value:
                self.item(i).setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def text_value(self) -> str | None:
        return ", ".join(self.checked()) or None

    def set_placeholder(self, text: str) -> None:
        self.setToolTip(text)


class TextEditor(QLineEdit):
    """Free text (a list of texts separated by commas)."""

    def __init__(self, question: Question, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.signals = EditorSignals(self)
        self.setMaxLength(4000)  # what the questionnaire takes for one answer
        self.textEdited.connect(lambda _text: self.signals.edited.emit())

    def set_value(self, value: Any) -> None:
        self.setText("" if value is None else shown(value))

    def text_value(self) -> str | None:
        return self.text().strip() or None

    def set_placeholder(self, text: str) -> None:
        self.setPlaceholderText(text)


Editor = NumberEditor | ChoiceEditor | ChoicesEditor | TextEditor


def editor_for(question: Question, parent: QWidget | None = None) -> Editor:
    """The editor for a question of this kind."""
    if question.kind in ("number", "integer"):
        return NumberEditor(question, parent)
    if question.kind in ("choice", "yes-no"):
        return ChoiceEditor(question, parent)
    if question.kind == "choices" and question.allowed:
        return ChoicesEditor(question, parent)
    return TextEditor(question, parent)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _parse(text: str) -> float | None:
    try:
        number = float(text.replace(",", "").strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None
