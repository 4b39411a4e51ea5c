"""Choose the prompt language: ``en`` or ``zh`` (design.md §10 ``language``).

``auto`` follows the language of the turn's request; when the request has no letters
at all, the final answer decides, and English is the fallback. Detection counts CJK
ideographs against Latin letters outside code (fenced blocks and inline code are
ignored, since identifiers are English in any language). Stdlib only and cheap.
"""

from __future__ import annotations

import re

from jev.base.domain import Material
from jev.base.errors import SettingsError

__all__ = ["LANGUAGES", "SETTINGS", "detect_language", "resolve_language"]

#: Prompt languages Jev ships templates for.
LANGUAGES: tuple[str, ...] = ("en", "zh")
#: Accepted values of the ``language`` setting.
SETTINGS: tuple[str, ...] = ("auto", "en", "zh")

#: Share of CJK ideographs among counted letters at or above which a text is Chinese.
#: One ideograph carries roughly a word, an English word about five letters, so 0.2
#: means "about as many Chinese words as English ones".
ZH_THRESHOLD = 0.2
#: Only the first characters of a text are inspected (the language is clear early).
SAMPLE_CHARS = 20_000

_CODE = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,}).*?(?:^[ \t]*\1[ \t]*$|\Z)|``[^\n]*?``|`[^`\n]+`")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")


def _counts(text: str) -> tuple[int, int]:
    """(CJK ideographs, Latin letters) in the first SAMPLE_CHARS of text, code removed."""
    sample = _CODE.sub(" ", text[:SAMPLE_CHARS])
    return len(_CJK.findall(sample)), len(_LATIN.findall(sample))


def detect_language(text: str) -> str:
    """Return ``"zh"`` when CJK ideographs make up at least :data:`ZH_THRESHOLD` of the
    letters of ``text`` (code spans excluded), else ``"en"`` (also for no letters).

    Args:
        text: any text; only its first :data:`SAMPLE_CHARS` characters are read.
    """
    cjk, latin = _counts(text)
    if cjk and cjk / (cjk + latin) >= ZH_THRESHOLD:
        return "zh"
    return "en"


def resolve_language(setting: str, material: Material) -> str:
    """Resolve the ``language`` setting for one audit (design.md §10).

    Args:
        setting: ``"auto"``, ``"en"`` or ``"zh"``.
        material: the turn's material; with ``auto`` its request decides, then (if the
            request has no letters) its final answer, then English.

    Returns:
        ``"en"`` or ``"zh"``.

    Raises:
        SettingsError: for any other setting value.
    """
    if setting in LANGUAGES:
        return setting
    if setting != "auto":
        raise SettingsError(
            f"language must be one of auto, en, zh (got {setting!r}); "
            "fix it with `jev settings set language auto`."
        )
    for text in ("\n".join(material.request), material.final_answer):
        cjk, latin = _counts(text)
        if cjk or latin:
            return "zh" if cjk and cjk / (cjk + latin) >= ZH_THRESHOLD else "en"
    return "en"
