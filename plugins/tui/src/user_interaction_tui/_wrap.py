"""Styled text cut into screen lines at word boundaries, by display width.

prompt_toolkit wraps a long line at whatever cell the screen ends on, mid-word. Here the
plain text of each line is wrapped by :func:`wcwidth.wrap` (display cells: wide East Asian
characters take two, and a run of them may break between any two), and the styled
fragments are cut at the same places.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from wcwidth import width as _width
from wcwidth import wrap as _wrap_text

__all__ = ["Fragments", "split", "wrap"]

Fragments = list[tuple[str, str]]


def split(fragments: Fragments) -> list[Fragments]:
    """``fragments`` as one list per line (the line breaks dropped)."""
    lines: list[Fragments] = [[]]
    for style, text in fragments:
        parts = text.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((style, part))
    return lines


def wrap(
    fragments: Fragments, width: int, indents: Sequence[int] = ()
) -> tuple[list[Fragments], list[int]]:
    """The screen lines of ``fragments`` at ``width`` cells, and the first screen line of
    each of its lines. A line's continuations are indented by its entry in ``indents``."""
    out: list[Fragments] = []
    starts: list[int] = []
    for number, line in enumerate(split(fragments)):
        starts.append(len(out))
        indent = indents[number] if number < len(indents) else 0
        out += wrap_line(line, width, indent)
    return out, starts


def wrap_line(line: Fragments, width: int, indent: int = 0) -> list[Fragments]:
    """One line as screen lines of at most ``width`` cells, broken between words."""
    text = "".join(part for _, part in line)
    if width < 2 or _width(text) <= width or not text.strip():
        return [line]
    return [list(cut) for cut in _wrapped(tuple(line), text, width, indent)]


@lru_cache(maxsize=4096)  # a redraw re-wraps only the lines that changed
def _wrapped(
    line: tuple[tuple[str, str], ...], text: str, width: int, indent: int
) -> tuple[tuple[tuple[str, str], ...], ...]:
    if indent * 2 > width:
        indent = 0  # a deep indent on a narrow screen would leave no room for the words
    pad = " " * indent
    pieces = _wrap_text(
        text,
        width,
        subsequent_indent=pad,
        expand_tabs=False,
        replace_whitespace=False,
        propagate_sgr=False,
    )
    out: list[tuple[tuple[str, str], ...]] = []
    position = 0
    for number, wrapped in enumerate(pieces):
        piece = wrapped[len(pad) :] if number else wrapped
        start = text.find(piece, position)
        if start < 0 or text[position:start].strip():
            return (line,)  # the wrapper changed the text: leave it whole to the screen
        end = start + len(piece)
        cut = _slice(line, start, end)
        out.append((("", pad), *cut) if number and pad else cut)
        position = end
    return tuple(out) or (line,)


def _slice(line: tuple[tuple[str, str], ...], start: int, end: int) -> tuple[tuple[str, str], ...]:
    """The fragments of ``line`` covering characters ``start`` to ``end``."""
    out: list[tuple[str, str]] = []
    offset = 0
    for style, text in line:
        low, high = max(start, offset), min(end, offset + len(text))
        if low < high:
            out.append((style, text[low - offset : high - offset]))
        offset += len(text)
        if offset >= end:
            break
    return tuple(out)
