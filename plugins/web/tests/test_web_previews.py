"""Previews as trees (user_interaction_web.previews): what the page gets for an option's
Markdown, from ordinary previews to hostile ones. The page's rendering of the trees is
checked in a browser in test_web_browser.py."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from user_interaction_web.previews import MAX_SOURCE, tree, with_trees

from user_interaction.terminal import visible

BLOCKS = {
    "paragraph",
    "heading",
    "list",
    "item",
    "quote",
    "codeblock",
    "rule",
    "table",
    "row",
    "cell",
    "omitted",
}
INLINES = {"code", "em", "strong", "del", "link", "image", "break"}
CLASSES = {
    "",
    "k",
    "kc",
    "kt",
    "nb",
    "nf",
    "nc",
    "nd",
    "ne",
    "nt",
    "na",
    "nv",
    "no",
    "s",
    "se",
    "m",
    "c",
    "cp",
    "gd",
    "gi",
    "gh",
    "gu",
    "ge",
    "gs",
    "gp",
    "gr",
    "err",
}


def nodes(blocks: list[Any]) -> Iterator[tuple[Any, int]]:
    """Every node and string of a tree, with its depth (iteratively)."""
    todo = [(node, 1) for node in reversed(blocks)]
    while todo:
        node, depth = todo.pop()
        yield node, depth
        if isinstance(node, dict):
            todo.extend((child, depth + 1) for child in reversed(node.get("children", [])))


def checked(blocks: list[Any]) -> list[Any]:
    """``blocks``, after checking that they are a well-formed tree: JSON (nothing else),
    only the documented node types, links and images only to http, https and mailto,
    code runs of known classes, and no control character in any text."""
    assert json.loads(json.dumps(blocks)) == blocks
    for node, _ in nodes(blocks):
        if isinstance(node, str):
            assert node == visible(node, multiline=True), node
            continue
        assert node["type"] in BLOCKS | INLINES, node
        for key in ("href", "src"):
            if key in node:
                assert node[key].split(":")[0].lower() in ("http", "https", "mailto"), node
        for name, text in node.get("runs", []):
            assert name in CLASSES, name
            assert text == visible(text, multiline=True)
    return blocks


def text_of(blocks: list[Any]) -> str:
    parts = []
    for node, _ in nodes(blocks):
        if isinstance(node, str):
            parts.append(node)
        elif node["type"] == "code":
            parts.append(node["text"])
        elif node["type"] == "codeblock":
            parts.append("".join(text for _, text in node["runs"]))
    return "".join(parts)


def of_type(blocks: list[Any], kind: str) -> list[dict[str, Any]]:
    return [n for n, _ in nodes(blocks) if isinstance(n, dict) and n["type"] == kind]


# -- what a preview becomes --------------------------------------------------------------


def test_blocks_and_inline_markup() -> None:
    blocks = checked(
        tree(
            "# Title\n\nSome *em*, **strong**, ~~gone~~ and `code`.\nNext line  \nbroken\n\n"
            "- one\n- two\n  - nested\n\n3. third\n4. fourth\n\n> quoted\n\n---\n\n"
            "| name | size |\n|:-----|-----:|\n| a | 1 |"
        )
    )
    assert [b["type"] for b in blocks] == [
        "heading",
        "paragraph",
        "list",
        "list",
        "quote",
        "rule",
        "table",
    ]
    assert blocks[0] == {"type": "heading", "level": 1, "children": ["Title"]}
    assert blocks[1]["children"] == [
        "Some ",
        {"type": "em", "children": ["em"]},
        ", ",
        {"type": "strong", "children": ["strong"]},
        ", ",
        {"type": "del", "children": ["gone"]},
        " and ",
        {"type": "code", "text": "code"},
        ".\nNext line",
        {"type": "break"},
        "broken",
    ]
    # a tight list's text goes straight into its items
    bullets, numbers = blocks[2], blocks[3]
    assert bullets["ordered"] is False
    assert bullets["children"][0] == {"type": "item", "children": ["one"]}
    assert bullets["children"][1]["children"][1]["type"] == "list"
    assert (numbers["ordered"], numbers["start"]) == (True, 3)
    assert blocks[4]["children"] == [{"type": "paragraph", "children": ["quoted"]}]
    head, row = blocks[6]["children"]
    assert head["head"] is True
    assert row["head"] is False
    assert [c.get("align") for c in head["children"]] == ["left", "right"]
    assert row["children"][1]["children"] == ["1"]


def test_fenced_code_is_highlighted_by_its_language() -> None:
    code = 'def main(x):  # the entry\n    return "a" + 1\n'
    (block,) = checked(tree(f"```python\n{code}```"))
    assert block["type"] == "codeblock"
    assert block["language"] == "python"
    assert "".join(text for _, text in block["runs"]) == code.rstrip("\n")
    classes = dict(reversed(block["runs"]))  # the first run of each class
    assert classes["k"].startswith("def")
    assert classes["nf"] == "main"
    assert classes["c"].startswith("# the entry")
    assert classes["s"].startswith('"a"')
    assert classes["m"] == "1"
    # a diff's lines are what they are
    (diff,) = tree("```diff\n-old\n+new\n```")
    assert diff["runs"] == [["gd", "-old\n"], ["gi", "+new"]]


@pytest.mark.parametrize(
    "fence",
    [
        "```nosuchlanguage\n",
        "```\n",
        "    ",  # an indented code block
        "```python{onload=alert(1)}\n",
        "```" + "x" * 500 + "\n",
        "~~~ \x1b[31m\n",
    ],
)
def test_code_without_a_known_language_is_one_plain_run(fence: str) -> None:
    body = "if x: <b>y</b>"
    source = f"{fence}{body}\n```" if fence.startswith("`") else f"{fence}{body}"
    if fence.startswith("~"):
        source = f"{fence}{body}\n~~~"
    (block,) = checked(tree(source))
    assert block["runs"] == [["", body]]
    assert len(block.get("language", "")) <= 40


def test_with_trees_puts_a_tree_beside_each_preview() -> None:
    plain = {"id": "a", "question": "A?", "options": [{"label": "x"}]}
    free = {"id": "b", "question": "B?"}
    previewed = {
        "id": "c",
        "question": "C?",
        "options": [{"label": "y", "preview": "**y**"}, {"label": "z"}],
    }
    shown = with_trees([plain, free, previewed])
    assert shown[:2] == [plain, free]
    assert shown[2]["options"] == [
        {"label": "y", "preview": "**y**", "previewTree": tree("**y**")},
        {"label": "z"},
    ]
    assert previewed["options"][0] == {"label": "y", "preview": "**y**"}  # not modified
    assert tree("**y**") is tree("**y**")  # made once


# -- hostile previews --------------------------------------------------------------------


def test_raw_html_stays_text() -> None:
    html = "<script>alert(1)</script>"
    blocks = checked(
        tree(f"{html}\n\nText <img src=x onerror=alert(2)> and <b>bold</b>\n\n# <i>h</i>")
    )
    assert text_of(blocks) == (f"{html}Text <img src=x onerror=alert(2)> and <b>bold</b><i>h</i>")
    assert blocks[0] == {"type": "paragraph", "children": [html]}


@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](vbscript:msgbox)",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](file:///etc/passwd)",
        "[x](ftp://example.org/)",
        "[x](relative/page)",
        "[x](#fragment)",
        "[x](<javascript:alert(1)>)",
        "<javascript:alert(1)>",
        "[x][r]\n\n[r]: javascript:alert(1)",
    ],
)
def test_a_link_anywhere_but_http_https_or_mailto_is_text(link: str) -> None:
    blocks = checked(tree(f"See {link} now; ![pic](ftp://e.org/a.png) ![js](javascript:x)"))
    assert of_type(blocks, "link") == []
    assert of_type(blocks, "image") == [{"type": "image", "alt": "pic"}]  # no address
    assert "x" in text_of(blocks)


def test_http_https_and_mailto_links_keep_their_address() -> None:
    blocks = checked(
        tree("[a](https://example.org/x?y=1) [b](http://e.org) <mailto:me@e.org> <me@e.org>")
    )
    assert [link["href"] for link in of_type(blocks, "link")] == [
        "https://example.org/x?y=1",
        "http://e.org",
        "mailto:me@e.org",
        "mailto:me@e.org",
    ]
    (image,) = of_type(checked(tree("![a map](https://e.org/map.png)")), "image")
    assert image == {"type": "image", "alt": "a map", "src": "https://e.org/map.png"}


def test_control_and_invisible_characters_show_as_escapes() -> None:
    blocks = checked(
        tree(
            "Clear \x1b[2J here\x07, `c\x1b]0;t\x07`, [l\u202e](https://e.org/\u202e)\n\n"
            "```python\nx = 1  # \u202e reordered\n```\n\n\x00 nul"
        )
    )
    text = text_of(blocks)
    assert "\\x1b[2J" in text
    assert "\\x07" in text
    assert "\\u202e reordered" in text
    assert "\x1b" not in json.dumps(blocks, ensure_ascii=False)
    assert "\u202e" not in json.dumps(blocks, ensure_ascii=False)
    assert "\ufffd nul" in text  # the parser's own replacement of NUL


@pytest.mark.parametrize(
    "source",
    [
        "> " * 5000 + "deep",
        "- " * 5000 + "deep",
        "".join("  " * n + "- level\n" for n in range(300)),
        "*" * 3000 + "a" + "*" * 3000,
        "[" * 5000 + "]" * 5000,
        "![" * 4000,
        "**_~~`" * 2000,
        "|" * 3000 + "\n" + "|-" * 1500 + "\n" + "|x" * 1500,
        "\n".join(f"{'>' * (n % 40)} {'-' * (n % 3)} *x* [y](https://e.org)" for n in range(500)),
    ],
)
def test_deep_nesting_is_bounded(source: str) -> None:
    blocks = checked(tree(source))
    depth = max((depth for _, depth in nodes(blocks)), default=0)
    assert depth <= 36  # nodes nest 32 deep at most (a table adds its rows and cells)
    json.dumps(blocks)  # no encoder recursion limit is near


def test_a_huge_preview_is_cut_and_says_how_much_was_left_out() -> None:
    paragraph = "word " * 19 + "word\n\n"  # 100 characters
    source = paragraph * 2000  # 200 000 characters
    blocks = checked(tree(source))
    omitted = blocks[-1]
    assert omitted["type"] == "omitted"
    shown = len(source) - omitted["characters"]
    assert MAX_SOURCE // 2 <= shown <= MAX_SOURCE
    assert source[:shown].endswith("\n")  # cut at a line's end
    assert len(of_type(blocks, "paragraph")) == shown // 100
    code = "```python\n" + "x = 1\n" * 50_000 + "```"
    blocks = checked(tree(code))
    assert blocks[-1]["type"] == "omitted"
    assert len(text_of(blocks)) <= MAX_SOURCE


def test_random_markdown_soup_always_makes_a_well_formed_tree() -> None:
    pieces = [
        "*", "_", "**", "~~", "`", "```", "~~~", "[", "]", "(", ")", "<", ">", "!", "#", "- ",
        "1. ", "> ", "|", "---", "\\", "&amp;", "&#0;", "\n", "\n\n", "    ", "\t", " ",
        "javascript:", "https://e.org", "mailto:a@b", "<script>", "\x1b[0m", "\u202e", "\x00",
        "word", "é", "漢", "👩‍💻", "python", "diff", "\r\n", "<!--", "-->", "[r]: /x",
    ]  # fmt: skip
    generator = random.Random(27)
    for _ in range(300):
        source = "".join(generator.choice(pieces) for _ in range(generator.randint(1, 80)))
        checked(tree(source))
