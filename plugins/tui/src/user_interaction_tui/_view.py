"""How a :class:`~user_interaction_tui._form.Form` looks: styled text, no terminal library.

Every function returns prompt_toolkit "formatted text" — a list of ``(style, text)``
pairs — built from plain tuples, so this module imports nothing from prompt_toolkit and is
cheap to test. Model text always goes through :func:`user_interaction.terminal.visible`.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from user_interaction.terminal import visible

from ._form import Form, Page, Row, Status

__all__ = ["Body", "body", "footer", "preview", "tabs", "title"]

Fragments = list[tuple[str, str]]

POINTER: Final = ">"
OTHER: Final = "Other…"
NOTES: Final = "Notes…"
_MARKS: Final = {Status.ANSWERED: "✓", Status.SKIPPED: "-", Status.UNANSWERED: "•"}


class Body(NamedTuple):
    """The scrolling part of a page: its text, the line the cursor is on, and how far
    each line's continuation is indented when it wraps."""

    fragments: Fragments
    cursor_line: int
    indents: list[int]


def header_label(page: Page) -> str:
    header = page.item.header
    return visible(header.strip()) if header and header.strip() else f"Q{page.number}"


def tabs(form: Form) -> Fragments:
    """The tab bar of a batch: one tab per question (✓ answered, - skipped, • not yet)."""
    out: Fragments = []
    for index, page in enumerate(form.pages):
        style = "class:tab.current" if index == form.tab else "class:tab"
        if page.status is Status.UNANSWERED and index != form.tab:
            style += " class:tab.unanswered"
        out.append((style, f" {_MARKS[page.status]} {header_label(page)} "))
        out.append(("", " "))
    style = "class:tab.current" if form.reviewing else "class:tab"
    out.append((style, " Review "))
    return out


def title(form: Form) -> Fragments:
    """Above the options: the header as a label, the question, its detail."""
    if form.reviewing:
        out: Fragments = [("class:question", "Review your answers")]
        missing = len(form.unanswered())
        if missing:
            out.append(("class:unanswered", f"  ({missing} not answered yet)"))
        return out
    page = form.page
    out = []
    header = page.item.header
    if header and header.strip():
        out += [("class:header", f" {visible(header.strip())} "), ("", "  ")]
    if form.batch:
        out.append(("class:counter", f"Question {page.number} of {len(form.pages)}"))
    if out:
        out.append(("", "\n"))
    out.append(("class:question", visible(page.item.question)))
    if page.item.detail:
        out.append(("", "\n"))
        out.append(("class:detail", visible(page.item.detail, multiline=True)))
    return out


def body(form: Form) -> Body:
    """The option rows of a question (or the answers on the review page)."""
    return _review(form) if form.reviewing else _page(form, form.page)


def _page(form: Form, page: Page) -> Body:
    out: Fragments = []
    indents: list[int] = []
    cursor_line = 0
    options = page.item.options
    width = len(str(len(options)))
    multi = page.item.multi_select
    for position, row in enumerate(page.rows):
        here = position == page.cursor
        if here:
            cursor_line = len(indents)
        pointer = POINTER if here else " "
        style = "class:focused" if here else ""
        if isinstance(row, int):
            option = options[row]
            ticked = row in page.chosen
            mark = ("[x]" if ticked else "[ ]") if multi else ("(*)" if ticked else "( )")
            lead = f"{pointer} {mark} {row + 1:>{width}}. "
            text = visible(option.label)
            if option.preview and option.preview.strip():
                text += " ▸"  # the preview is shown beside (or under) the list
            out += [(style, lead), (style + " class:label", text), ("", "\n")]
            indents.append(len(lead))
            if option.description:
                out += [("class:description", " " * len(lead) + visible(option.description))]
                out.append(("", "\n"))
                indents.append(len(lead))
        elif row is Row.OTHER:
            ticked = page.custom is not None
            mark = ("[x]" if ticked else "[ ]") if multi else ("(*)" if ticked else "( )")
            lead = f"{pointer} {mark} {' ' * (width + 2)}" if options else f"{pointer} "
            name = OTHER if options else "Your answer…"
            if page.custom is not None:
                name = ("Other: " if options else "Answer: ") + visible(page.custom)
            out += [(style, lead), (style + " class:label", name), ("", "\n")]
            indents.append(len(lead))
        else:
            lead = f"{pointer}     {' ' * (width + 2)}"
            name = NOTES if page.notes is None else f"Notes: {visible(page.notes)}"
            out += [(style, lead), (style + " class:notes", name), ("", "\n")]
            indents.append(len(lead))
    if page.skipped:
        out += [("class:unanswered", "(skipped: Enter or Space answers it after all)"), ("", "\n")]
        indents.append(0)
    return Body(out, cursor_line, indents)


def _review(form: Form) -> Body:
    out: Fragments = []
    indents: list[int] = []
    cursor_line = 0
    width = len(str(len(form.pages)))
    for index, page in enumerate(form.pages):
        here = index == form.review_cursor
        if here:
            cursor_line = len(indents)
        style = "class:focused" if here else ""
        lead = f"{POINTER if here else ' '} {page.number:>{width}}. "
        header = page.item.header
        label = f"[{visible(header.strip())}] " if header and header.strip() else ""
        out += [(style, lead + label + visible(page.item.question)), ("", "\n")]
        indents.append(len(lead))
        pad = " " * len(lead)
        status = page.status
        if status is Status.UNANSWERED:
            out += [("class:unanswered", pad + "• not answered yet")]
        elif status is Status.SKIPPED:
            out += [("class:skipped", pad + "- skipped")]
        elif page.custom is not None:
            out += [("class:answer", pad + "✓ " + visible(page.custom))]
        else:
            labels = ", ".join(visible(page.item.options[i].label) for i in page.chosen)
            out += [("class:answer", pad + "✓ " + labels)]
            if page.notes:
                out += [("class:notes", f" (notes: {visible(page.notes)})")]
        out.append(("", "\n"))
        indents.append(len(pad) + 2)
    here = form.review_cursor == len(form.pages)
    if here:
        cursor_line = len(indents) + 1
    style = "class:focused class:submit" if here else "class:submit"
    out += [("", "\n"), (style, f"{POINTER if here else ' '} Submit"), ("", "\n")]
    indents += [0, 0]
    return Body(out, cursor_line, indents)


def preview(form: Form) -> str | None:
    """The focused option's preview, as plain text (Markdown shown as written)."""
    text = form.focused_preview()
    return None if text is None else visible(text.rstrip("\n"), multiline=True)


def footer(form: Form) -> Fragments:
    """The keys that work now, and the message of the last key, if any."""
    if form.field is not None:
        keys = "Enter: confirm · Esc: close the field · Ctrl-C: cancel"
        if form.batch:
            keys += " · Tab: next"
    elif form.reviewing:
        keys = "↑/↓: move · Enter: open or submit · s: skip · ←/→: tabs · Esc: cancel"
    else:
        options = bool(form.page.item.options)
        keys = "↑/↓ j/k: move · Enter: pick"
        if form.page.item.multi_select:
            keys = "↑/↓ j/k: move · Space: tick · Enter: done"
        if options:
            keys += " · 1-9: jump · o: other · n: notes"
        keys += " · s: skip"
        if form.batch:
            keys += " · ←/→ Tab: questions"
        keys += " · Esc: cancel"
    out: Fragments = []
    if form.message:
        out += [("class:message", form.message), ("", "\n")]
    out.append(("class:hint", keys))
    return out
