"""``user_interaction.terminal.visible``: nothing invisible or acting reaches a terminal."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from user_interaction.terminal import visible


def _invisible_by_unicode() -> list[str]:
    """Every format character (category Cf) and variation selector this Python knows."""
    return [
        chr(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) == "Cf"
        or "VARIATION SELECTOR" in unicodedata.name(chr(code), "")
    ]


def test_every_format_character_and_variation_selector_is_shown_as_an_escape() -> None:
    missed = [
        f"U+{ord(char):04X}"
        for char in _invisible_by_unicode()
        if visible(f"Keep{char}") == f"Keep{char}"
    ]
    assert missed == []


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Keep\ufe0f", "Keep\\ufe0f"),
        ("Keep\U000e0100", "Keep\\U000e0100"),
        ("\ufe0fKeep", "\\ufe0fKeep"),
        ("\u180bKeep", "\\u180bKeep"),
        ("\u0600100", "\\u0600100"),
        ("x\U0001d173", "x\\U0001d173"),
    ],
)
def test_options_differing_by_a_selector_or_format_character_look_different(
    text: str, shown: str
) -> None:
    assert visible(text) == shown
    assert visible(text) != visible(text.encode("ascii", "ignore").decode())


@pytest.mark.parametrize("emoji", ["\u2764\ufe0f", "\u263a\ufe0e", "\u2714\ufe0f done"])
def test_an_emoji_keeps_its_presentation_selector(emoji: str) -> None:
    assert visible(emoji) == emoji
