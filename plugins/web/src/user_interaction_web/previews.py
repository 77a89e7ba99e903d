"""An option's Markdown preview as a small JSON tree, which the page (the web provider's
and the inbox's) turns into elements with ``createElement`` and ``textContent`` only.

markdown-it-py parses the preview with raw HTML off, so markup in it is text; fenced
code is highlighted by Pygments, by the fence's language only (unknown or none: plain).
Every piece of text goes through :func:`user_interaction.terminal.visible`, so a control
or invisible character (a right-to-left override in code) shows as an escape instead of
reordering what the human reads.

A tree is a list of block nodes. A node is a dict with a ``type``; text is a plain string
among a node's ``children``:

========== ==================================================================
block      fields
========== ==================================================================
paragraph  ``children`` (inline)
heading    ``level`` (1-6), ``children`` (inline)
list       ``ordered``, ``start`` (ordered only), ``children`` (items)
item       ``children`` (blocks, or inline for a tight list's text)
quote      ``children`` (blocks)
codeblock  ``language`` (absent without one), ``runs``: ``[class, text]`` pairs
rule       (none)
table      ``children`` (rows)
row        ``head`` (in the table's head), ``children`` (cells)
cell       ``align`` (``left``, ``center``, ``right``; absent by default), ``children``
omitted    ``characters``: how much of a preview too long to show was left out
========== ==================================================================

Inline nodes: ``code`` (``text``), ``em``, ``strong``, ``del`` (``children``), ``link``
(``href``: only ``http``, ``https`` and ``mailto`` addresses are kept, any other link is
its text alone), ``image`` (``alt``, ``src`` under the same rule), ``break``. A run's
class is a Pygments short class name (``k`` keyword, ``s`` string, ``c`` comment, ``nf``
function, ``gd`` and ``gi`` a diff's lines...; ``""`` plain) of the few the page styles.

Trees are cached by their Markdown (the inbox sends every pending card again to each page
that connects) and shared: never modify one. At most :data:`MAX_SOURCE` characters of a
preview are parsed, so no preview costs more than a fraction of a second.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from user_interaction.terminal import visible

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from pygments.lexer import Lexer

__all__ = ["MAX_SOURCE", "tree", "with_trees"]

#: The most characters of one preview that are parsed (the tool's default limit of a
#: preview's length); the rest is an ``omitted`` node.
MAX_SOURCE: Final = 10_000
#: How many characters of Markdown the cache of trees holds, all trees together.
_CACHE_CHARACTERS: Final = 1_000_000
_SCHEMES: Final = frozenset({"http", "https", "mailto"})
_ALIGNS: Final = {f"text-align:{side}": side for side in ("left", "center", "right")}
_LANGUAGE_LENGTH: Final = 40
#: How deep nodes nest at most (the parser bounds blocks, not emphasis in emphasis); a
#: table's rows and cells go one and two below their table wherever it is.
_MAX_DEPTH: Final = 32
_IN_TABLE: Final = frozenset({"row", "cell"})
_INLINE: Final = {"strong_open": "strong", "em_open": "em", "s_open": "del"}

Node = dict[str, Any]

_cache: OrderedDict[str, list[Any]] = OrderedDict()
_cached_characters = 0
_cache_lock = threading.Lock()


def tree(markdown: str) -> list[Any]:
    """The block nodes of ``markdown`` (see the module's description); shared, cached."""
    global _cached_characters
    with _cache_lock:
        found = _cache.get(markdown)
        if found is not None:
            _cache.move_to_end(markdown)
            return found
    made = _build(markdown)
    with _cache_lock:
        if markdown not in _cache:
            _cache[markdown] = made
            _cached_characters += len(markdown)
            while _cached_characters > _CACHE_CHARACTERS and len(_cache) > 1:
                dropped, _ = _cache.popitem(last=False)
                _cached_characters -= len(dropped)
        return _cache[markdown]


def with_trees(questions: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``questions`` in their wire form, each option with a ``preview`` given its
    ``previewTree`` beside it (the page renders the tree; the rest is unchanged)."""
    shown: list[Mapping[str, Any]] = []
    for question in questions:
        options = question.get("options")
        if not isinstance(options, list) or not any(_previewed(o) for o in options):
            shown.append(question)
            continue
        shown.append(
            {
                **question,
                "options": [
                    {**option, "previewTree": tree(option["preview"])}
                    if _previewed(option)
                    else option
                    for option in options
                ],
            }
        )
    return shown


def _previewed(option: object) -> bool:
    return isinstance(option, Mapping) and isinstance(option.get("preview"), str)


# -- building ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # on the first preview, not at import

    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def _build(markdown: str) -> list[Any]:
    source = markdown
    left = 0
    if len(source) > MAX_SOURCE:
        cut = source.rfind("\n", MAX_SOURCE // 2, MAX_SOURCE)
        source = source[: cut if cut > 0 else MAX_SOURCE]
        left = len(markdown) - len(source)
    builder = _Builder()
    builder.blocks(_parser().parse(source))
    if left:
        builder.root.append({"type": "omitted", "characters": left})
    return builder.root


class _Builder:
    """Turns markdown-it's flat token stream into nested nodes, iteratively and at most
    :data:`_MAX_DEPTH` deep: no recursion, here or in the page, can exhaust a stack."""

    def __init__(self) -> None:
        self.root: list[Any] = []
        self.stack: list[list[Any]] = [self.root]  # the children being filled
        self.pushed: list[bool] = []  # per open token: whether it opened a node
        self.in_head = False

    def add(self, item: str | Node) -> None:
        children = self.stack[-1]
        if isinstance(item, str):
            if not item:
                return
            if children and isinstance(children[-1], str):
                children[-1] += item
                return
        children.append(item)

    def open(self, node: Node | None) -> None:
        if node is None or (len(self.stack) > _MAX_DEPTH and node["type"] not in _IN_TABLE):
            self.pushed.append(False)  # too deep: its content goes where it is
            return
        node["children"] = []
        self.add(node)
        self.stack.append(node["children"])
        self.pushed.append(True)

    def close(self) -> None:
        if self.pushed and self.pushed.pop():
            self.stack.pop()

    def blocks(self, tokens: list[Token]) -> None:
        for token in tokens:
            kind = token.type
            if kind == "inline":
                self.inline(token.children or [])
            elif token.nesting == 1:
                self.open(self.block_node(token))
            elif token.nesting == -1:
                if kind == "thead_close":
                    self.in_head = False
                self.close()
            elif kind in ("fence", "code_block"):
                self.add(_code_block(token.content, token.info if kind == "fence" else ""))
            elif kind == "hr":
                self.add({"type": "rule"})
            elif token.content:  # anything else (raw HTML is off): its text
                self.add({"type": "paragraph", "children": [visible(token.content)]})

    def block_node(self, token: Token) -> Node | None:
        kind = token.type
        if kind == "paragraph_open":
            # a tight list's paragraph: its text goes straight into the item
            return None if token.hidden else {"type": "paragraph"}
        if kind == "heading_open":
            return {"type": "heading", "level": int(token.tag[1:])}
        if kind == "bullet_list_open":
            return {"type": "list", "ordered": False}
        if kind == "ordered_list_open":
            start = token.attrGet("start")
            return {"type": "list", "ordered": True, "start": int(start) if start else 1}
        if kind == "list_item_open":
            return {"type": "item"}
        if kind == "blockquote_open":
            return {"type": "quote"}
        if kind == "table_open":
            return {"type": "table"}
        if kind == "thead_open":
            self.in_head = True
            return None
        if kind == "tr_open":
            return {"type": "row", "head": self.in_head}
        if kind in ("th_open", "td_open"):
            cell: Node = {"type": "cell"}
            align = _ALIGNS.get(str(token.attrGet("style") or ""))
            if align is not None:
                cell["align"] = align
            return cell
        return None  # tbody and anything else: its content goes where it is

    def inline(self, children: list[Token]) -> None:
        for child in children:
            kind = child.type
            if kind in ("text", "text_special"):
                self.add(visible(child.content, multiline=True))
            elif kind == "softbreak":
                self.add("\n")
            elif kind == "hardbreak":
                self.add({"type": "break"})
            elif kind == "code_inline":
                self.add({"type": "code", "text": visible(child.content, multiline=True)})
            elif kind == "image":
                image: Node = {"type": "image", "alt": visible(child.content)}
                src = _safe(child.attrGet("src"))
                if src is not None:
                    image["src"] = src
                self.add(image)
            elif kind == "link_open":
                href = _safe(child.attrGet("href"))
                self.open(None if href is None else {"type": "link", "href": href})
            elif kind in _INLINE:
                self.open({"type": _INLINE[kind]})
            elif child.nesting == 1:
                self.open(None)
            elif child.nesting == -1:
                self.close()
            else:  # raw HTML is off: anything else as its text
                self.add(visible(child.content, multiline=True))


def _safe(address: object) -> str | None:
    """``address`` if it is an ``http``, ``https`` or ``mailto`` one, else ``None``."""
    if not isinstance(address, str):
        return None
    scheme, colon, _ = address.partition(":")
    if not colon or scheme.lower() not in _SCHEMES:
        return None
    return visible(address)


# -- code --------------------------------------------------------------------------------


def _code_block(code: str, info: str) -> Node:
    language = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    node: Node = {"type": "codeblock"}
    if language:
        node["language"] = visible(language[:_LANGUAGE_LENGTH])
    text = visible(code, multiline=True)
    if text.endswith("\n"):
        text = text[:-1]
    node["runs"] = _runs(text, language)
    return node


def _runs(text: str, language: str) -> list[list[str]]:
    """``text`` as ``[class, text]`` runs, highlighted for ``language`` when Pygments
    knows it (else one plain run); next runs of one class are merged, and white space
    joins the run before it."""
    lexer = _lexer(language.lower()) if language else None
    if lexer is None or not text:
        return [["", text]] if text else []
    try:
        pieces = list(lexer.get_tokens(text))
    except Exception:  # a lexer that fails on odd input: the code as it is
        return [["", text]]
    runs: list[list[str]] = []
    for kind, value in pieces:
        if not value:
            continue
        name = "" if value.isspace() and runs else _class_of(kind)
        if runs and (runs[-1][0] == name or value.isspace()):
            runs[-1][1] += value
        else:
            runs.append([name, value])
    if runs and runs[-1][1].endswith("\n") and not text.endswith("\n"):
        runs[-1][1] = runs[-1][1][:-1]  # the lexer ends the text with a line break
        if not runs[-1][1]:
            runs.pop()
    return runs


@lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer | None:
    from pygments.lexers import get_lexer_by_name

    try:
        return get_lexer_by_name(language, stripnl=False)
    except Exception:  # ClassNotFound, or a broken lexer plugin: no highlighting
        return None


@lru_cache(maxsize=256)
def _class_of(kind: Any) -> str:
    """The class of a Pygments token type: its own or its nearest family's among those
    the page styles, else ``""``."""
    classes = _classes()
    while kind is not None:
        name = classes.get(kind)
        if name is not None:
            return name
        kind = kind.parent
    return ""


@lru_cache(maxsize=1)
def _classes() -> dict[Any, str]:
    from pygments.token import Comment, Error, Generic, Keyword, Name, Number, Operator, String

    return {
        Keyword: "k",
        Keyword.Constant: "kc",
        Keyword.Type: "kt",
        Operator.Word: "k",
        Name.Builtin: "nb",
        Name.Builtin.Pseudo: "nb",
        Name.Function: "nf",
        Name.Class: "nc",
        Name.Decorator: "nd",
        Name.Exception: "ne",
        Name.Tag: "nt",
        Name.Attribute: "na",
        Name.Variable: "nv",
        Name.Constant: "no",
        String: "s",
        String.Escape: "se",
        String.Interpol: "se",
        Number: "m",
        Comment: "c",
        Comment.Preproc: "cp",
        Generic.Deleted: "gd",
        Generic.Inserted: "gi",
        Generic.Heading: "gh",
        Generic.Subheading: "gu",
        Generic.Emph: "ge",
        Generic.Strong: "gs",
        Generic.Prompt: "gp",
        Generic.Error: "gr",
        Generic.Traceback: "gr",
        Error: "err",
    }
