"""Text that came from a model (or from any untrusted source), made safe to show on a
terminal: the one neutralising function of the core, the line-based and full-screen
providers and the command line.

:func:`visible` shows every control or invisible character as an escape instead of letting
it act: ``\\x1b[2J`` is shown, never executed; a right-to-left override or a zero-width
space cannot reorder or hide what the human reads, so the options ``Keep`` and
``Keep\\u200b`` look different; tag characters (U+E0000-U+E007F, invisible "ASCII
smuggling") are shown as ``\\U000e0041``. So are the format characters and variation
selectors, which change nothing a reader can see in the text they follow (``Keep`` and
``Keep\\ufe0f``), except an emoji presentation selector after a symbol (``\\u2764\\ufe0f``).
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import Final

__all__ = ["TAB_SIZE", "color_wanted", "visible"]

#: The tab stops of multi-line text (tabs are expanded to spaces there).
TAB_SIZE: Final = 4

# C0 and C1 controls, DEL; characters that reorder text or break lines (bidi overrides,
# isolates and marks, the Arabic letter mark, line and paragraph separators); invisible
# ones (soft hyphen, combining grapheme joiner, Hangul fillers, Mongolian vowel separator,
# zero-width space/joiners, word joiner and invisible operators, the byte order mark,
# interlinear annotations) and the tag characters; every other format character (Unicode
# category Cf: Arabic number signs and end of ayah, Syriac abbreviation mark, Kaithi number
# signs, Egyptian hieroglyph, shorthand and musical format controls) and every variation
# selector (Mongolian free variation selectors, VS1-VS256).
_INVISIBLE: Final = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
#: The text and emoji presentation selectors, shown as they are after a symbol (an emoji).
_PRESENTATION: Final = frozenset("\ufe0e\ufe0f")
_UNSAFE: Final = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}]")
_UNSAFE_EXCEPT_NEWLINE: Final = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{_INVISIBLE}]")
_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _show(match: re.Match[str]) -> str:
    char = match.group()
    start = match.start()
    if char in _PRESENTATION and start:
        before = match.string[start - 1]
        if unicodedata.category(before).startswith("S"):
            return char
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control or invisible character shown as an escape.

    With ``multiline``, line breaks (``\\n``, ``\\r\\n``) are kept and tabs expanded to
    :data:`TAB_SIZE` columns; without it they are shown as ``\\n`` and ``\\t`` too.
    """
    if multiline:
        text = text.replace("\r\n", "\n").expandtabs(TAB_SIZE)
        return _UNSAFE_EXCEPT_NEWLINE.sub(_show, text)
    return _UNSAFE.sub(_show, text)


def color_wanted(stream: object) -> bool:
    """Whether to colour text written to ``stream``, by the common conventions: never
    with ``NO_COLOR`` set (not empty); always with ``FORCE_COLOR`` or ``CLICOLOR_FORCE``
    set (not empty, not ``0``); else only on a terminal whose ``TERM`` is not ``dumb``."""
    if os.environ.get("NO_COLOR"):
        return False
    for name in ("FORCE_COLOR", "CLICOLOR_FORCE"):
        if os.environ.get(name, "0") not in ("", "0"):
            return True
    if os.environ.get("TERM", "") == "dumb":
        return False
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False
