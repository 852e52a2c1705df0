"""Raw ids in human sentences: every sentence names a criterion by its title in its language and a ranking
method or order in words; only the JSON keeps the ids (`intra_node`, `line_quality`, `weighted-sum`, …).

`raw_ids(text)` finds them: ids with an underscore or a hyphen wherever they stand as a word of their own
(not inside a longer identifier, a path or a fact key such as `offering.intra_node.kind`, which are data), and
in Chinese text also the one-word ids (`price`, `cooling`, `budget`), which in English are words too, where
a Chinese sentence puts a criterion's name: after a full-width colon, comma or enumeration mark, and before
one, an opening bracket or " =" ("权重：price", "最强项：cooling = 0.80（…）", "未知项：cooling、support")."""

from __future__ import annotations

import re

from catalogs.checklist import default_checklist
from catalogs.scoring import RANK_ORDERS, RANKING_METHODS

IDS = tuple(c.id for c in default_checklist().criterion) + RANKING_METHODS + RANK_ORDERS
COMPOUND = tuple(i for i in IDS if "_" in i or "-" in i)
WORDS = tuple(i for i in IDS if i not in COMPOUND and i != "topsis")  # "TOPSIS" is the method's name


def _pattern(ids: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(rf"(?<![\w./-])(?:{alternatives})(?![\w/-]|\.\w)")


_COMPOUND = _pattern(COMPOUND)
_WORDS = re.compile(
    rf"(?:^|(?<=[：、，；（]))\s*({'|'.join(re.escape(i) for i in WORDS)})(?=\s*(?:[、，；。：（(]|=|$))",
    re.MULTILINE,
)


def raw_ids(text: str, chinese: bool = False) -> list[str]:
    """The raw criterion, method and order ids standing as words in `text`."""
    found = _COMPOUND.findall(text)
    if chinese:
        found += _WORDS.findall(text)
    return found
