"""An option's Markdown preview as styled text for the terminal.

markdown-it-py parses the preview (raw HTML off: markup in it stays text); the tokens
become ``(style, text)`` fragments: headings in bold, lists with their bullets or numbers,
quotes behind a bar, links with their address, and fenced code highlighted by Pygments
(its token classes, coloured by the application's style). Every piece of text goes
through :func:`user_interaction.terminal.visible`. Imported on the first preview shown.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt

from user_interaction.terminal import visible

from ._wrap import Fragments

__all__ = ["render"]


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


@lru_cache(maxsize=64)  # a preview is drawn again on every frame it is shown in
def render(source: str) -> tuple[tuple[tuple[str, str], ...], tuple[int, ...]]:
    """The fragments of ``source``, and how far each of their lines' continuations are
    indented when they wrap (under a list item's text, behind a quote's bar)."""
    writer = _Writer()
    writer.blocks(_parser().parse(source))
    return tuple(writer.out), tuple(writer.indents)


class _Writer:
    def __init__(self) -> None:
        self.out: Fragments = []
        self.indents: list[int] = []
        self.prefix: list[str] = []  # per open list item or quote: what starts its lines
        self.at_start = True
        self.lists: list[list[int]] = []  # per open list: [next number] ([-1]: bullets)
        self.styles: list[str] = []

    # -- writing ---------------------------------------------------------------------------

    def write(self, text: str, style: str = "") -> None:
        for index, part in enumerate(text.split("\n")):
            if index:
                self.newline()
            if not part:
                continue
            if self.at_start:
                lead = "".join(self.prefix)
                if lead:
                    self.out.append(("class:md.bar", lead))
                self.indents.append(len(lead))
                self.at_start = False
            self.out.append((" ".join([*self.styles, style]).strip(), part))

    def newline(self) -> None:
        if self.at_start:
            self.indents.append(len("".join(self.prefix)))
            lead = "".join(self.prefix).rstrip()
            if lead:
                self.out.append(("class:md.bar", lead))
        self.out.append(("", "\n"))
        self.at_start = True

    def end_block(self, tight: bool = False) -> None:
        if not self.at_start:
            self.newline()
        if not tight and not self.lists:
            self.newline()  # a blank line between blocks (inside a list: none)

    # -- blocks ----------------------------------------------------------------------------

    def blocks(self, tokens: list[Any]) -> None:
        for token in tokens:
            kind = token.type
            if kind == "heading_open":
                self.styles.append("class:md.heading")
            elif kind == "heading_close":
                self.styles.pop()
                self.end_block()
            elif kind == "inline":
                self.inline(token.children or [])
            elif kind == "paragraph_close":
                self.end_block(tight=token.hidden)
            elif kind in ("bullet_list_open", "ordered_list_open"):
                if not self.at_start:
                    self.newline()
                if kind == "ordered_list_open":
                    start = token.attrGet("start")
                    self.lists.append([int(start) if start is not None else 1])
                else:
                    self.lists.append([-1])
            elif kind in ("bullet_list_close", "ordered_list_close"):
                self.lists.pop()
                self.end_block()
            elif kind == "list_item_open":
                if not self.at_start:
                    self.newline()
                counter = self.lists[-1]
                mark = "• " if counter[0] < 0 else f"{counter[0]}. "
                if counter[0] >= 0:
                    counter[0] += 1
                self.write(mark, "class:md.mark")
                self.prefix.append(" " * len(mark))
            elif kind == "list_item_close":
                self.prefix.pop()
                if not self.at_start:
                    self.newline()
            elif kind == "blockquote_open":
                self.prefix.append("│ ")
            elif kind == "blockquote_close":
                self.prefix.pop()
                self.end_block(tight=True)
            elif kind in ("fence", "code_block"):
                self.code(token.content, token.info.strip().split(" ")[0] if token.info else "")
                self.end_block(tight=True)
                if not self.lists:
                    self.newline()
            elif kind == "hr":
                self.write("─" * 20, "class:md.bar")
                self.end_block()
            elif kind in ("th_open", "td_open"):
                if not self.at_start:
                    self.write(" │ ", "class:md.bar")
            elif kind == "tr_close":
                self.newline()
            elif kind == "table_close":
                self.end_block(tight=True)

    def code(self, text: str, language: str) -> None:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound

        try:
            lexer = get_lexer_by_name(language) if language else None
        except ClassNotFound:
            lexer = None
        shown = visible(text.rstrip("\n"), multiline=True)
        if lexer is None:
            self.write(shown, "class:md.code")
            return
        pieces = list(lexer.get_tokens(shown))
        if pieces and pieces[-1][1].endswith("\n"):  # the lexer ends the text with a break
            kind, value = pieces[-1]
            pieces[-1] = (kind, value[:-1])
        for kind, value in pieces:
            name = ".".join(part.lower() for part in kind)
            self.write(value, f"class:md.code class:pygments.{name}" if name else "class:md.code")

    # -- inline ----------------------------------------------------------------------------

    def inline(self, children: list[Any]) -> None:
        href: list[str] = []
        for child in children:
            kind = child.type
            if kind == "text":
                self.write(visible(child.content))
            elif kind == "code_inline":
                self.write(visible(child.content), "class:md.code")
            elif kind in ("softbreak", "hardbreak"):
                self.newline()
            elif kind == "strong_open":
                self.styles.append("bold")
            elif kind == "em_open":
                self.styles.append("italic")
            elif kind == "s_open":
                self.styles.append("strike")
            elif kind in ("strong_close", "em_close", "s_close"):
                self.styles.pop()
            elif kind == "link_open":
                href.append(str(child.attrGet("href") or ""))
                self.styles.append("underline")
            elif kind == "link_close":
                self.styles.pop()
                target = href.pop() if href else ""
                if target:
                    self.write(f" ({visible(target)})", "class:md.url")
            elif kind == "image":
                alt = visible(child.content) or "image"
                self.write(f"[image: {alt}]", "class:md.url")
            else:  # html_inline with HTML off does not occur; anything else as its text
                self.write(visible(child.content))
