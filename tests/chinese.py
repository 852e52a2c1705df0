"""What Chinese text must not show: English punctuation glued around Chinese words (an ASCII ; , or : beside
a Chinese character, ASCII brackets around Chinese, a space after 。 or ；). Names, commands, data and the
padding after a label's ：are left alone."""

from __future__ import annotations

import re

GLUED = re.compile(
    r"[\u4e00-\u9fff）][;,:]|[;,:] ?[\u4e00-\u9fff（]|\([^()]*[\u4e00-\u9fff][^()]*\)|[。；] +[\u4e00-\u9fff]"
)


def glued(text: str) -> list[str]:
    """Each place in `text` where English punctuation is glued to Chinese, with 20 characters either side."""
    return sorted({text[max(0, m.start() - 20) : m.end() + 20] for m in GLUED.finditer(text)})
