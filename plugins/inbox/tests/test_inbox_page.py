"""The inbox page in Chromium (Playwright), against a real ``inbox serve``: every agent's asks
arriving and leaving live on every tab, the notices of an ask that expired, was withdrawn or
was answered elsewhere, the receipt saying what was sent, keyboard-only answering from a
notification's link, a phone-sized screen, axe-core in light and dark, and the session
cookie that lets a link without the token in. Asks are posted as the ``inbox`` provider
posts them; every step waits on the page or the server, never on a clock."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from inbox_support import Inbox
from page_support import Tab, ask, axe, page_of
from user_interaction_inbox._server import SESSION_COOKIE

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

QUESTION_TEXT = "Which package manager?"


def answer_of(question_id: str, label: str) -> dict[str, Any]:
    return {"answers": [{"id": question_id, "selected": [label]}]}


@pytest.fixture
def open_tab(browser: Browser) -> Iterator[Callable[..., Tab]]:
    """Opens tabs (each in a browser context of its own) and, at the end, checks that
    none logged an error and closes them."""
    tabs: list[Tab] = []

    def opened(url: str, *, connected: bool = True, **context: Any) -> Tab:
        tab = Tab(browser, url, connected=connected, **context)
        tabs.append(tab)
        return tab

    yield opened
    errors = [error for tab in tabs for error in tab.errors]
    for tab in tabs:
        tab.close()
    assert errors == [], "the page logged errors"


def settled(inbox: Inbox, ask_id: str) -> dict[str, Any]:
    reply = inbox.call("GET", f"/api/asks/{ask_id}")
    assert reply.status == 200
    body: dict[str, Any] = reply.body
    return body


def test_asks_arrive_and_leave_live_on_every_tab(inbox: Inbox, open_tab: Any) -> None:
    from playwright.sync_api import expect

    first = ask(inbox, "one", agent="agent A")
    tabs = [open_tab(page_of(inbox)), open_tab(page_of(inbox))]
    for tab in tabs:
        card = tab.card_for("one")
        expect(card.locator(".agent")).to_have_text("agent A")
        expect(card.locator(".age")).to_have_text("asked just now")
        nav = tab.page.get_by_role("navigation", name="Pending asks")
        expect(nav).to_contain_text("1 ask waiting:")
    second = ask(inbox, "two", agent="agent B", time_left=600)
    for tab in tabs:  # it arrives on both, after the older one
        expect(tab.page.locator(".card .agent")).to_have_text(["agent A", "agent B"])
        expect(tab.card_for("two").locator(".time-left")).to_contain_text("left to answer")
        expect(tab.page.get_by_role("navigation", name="Pending asks")).to_contain_text(
            "2 asks waiting:"
        )
    one, two = tabs
    card = one.card_for("two")
    card.get_by_role("radio", name="pnpm", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    expect(one.page.locator(".receipt")).to_have_text(f"✓ Sent to the agent:{QUESTION_TEXT} → pnpm")
    expect(one.page.locator(".receipt")).to_have_role("status")
    expect(two.cards()).to_have_count(1)  # it left the other tab, without a notice
    expect(two.page.locator(".notice")).to_have_count(0)
    answered = settled(inbox, second)
    assert (answered["state"], answered["settledBy"]) == ("answered", "the inbox page")
    assert answered["answer"] == answer_of("two", "pnpm")

    # answered elsewhere (inbox answer, attend): it leaves every tab
    elsewhere = {"action": "answer", "answer": answer_of("one", "npm"), "by": "inbox answer"}
    assert inbox.call("POST", f"/api/asks/{first}/settle", elsewhere).status == 200
    for tab in tabs:
        expect(tab.cards()).to_have_count(0)
        expect(tab.page.locator("#empty")).to_be_visible()
        expect(tab.page.get_by_role("navigation", name="Pending asks")).to_be_hidden()


def test_an_ask_that_leaves_with_text_typed_stays_with_a_notice(
    inbox: Inbox, open_tab: Any
) -> None:
    from playwright.sync_api import expect

    withdrawn = ask(inbox, "withdrawn", agent="agent A")
    elsewhere = ask(inbox, "elsewhere", agent="agent B")
    tab = open_tab(page_of(inbox))
    for question_id in ("withdrawn", "elsewhere"):
        tab.card_for(question_id).get_by_role("textbox", name="Other answer").fill("half-typed")

    inbox.call("POST", f"/api/asks/{withdrawn}/withdraw", {})
    card = tab.card_for("withdrawn")
    expect(card.get_by_role("alert")).to_have_text(
        "The agent withdrew this question: nothing was sent. What you typed is kept below to copy."
    )
    expect(card.get_by_role("textbox", name="Other answer")).to_have_value("half-typed")
    expect(card.get_by_role("button", name="Submit")).to_be_disabled()

    reply = {"action": "answer", "answer": answer_of("elsewhere", "npm"), "by": "inbox answer"}
    inbox.call("POST", f"/api/asks/{elsewhere}/settle", reply)
    expect(tab.card_for("elsewhere").get_by_role("alert")).to_have_text(
        "This question was answered by inbox answer: nothing was sent from here."
        " What you typed is kept below to copy."
    )
    # the count follows what still waits; Dismiss takes a notice away
    expect(tab.page.get_by_role("navigation", name="Pending asks")).to_be_hidden()
    card.get_by_role("button", name="Dismiss").click()
    expect(tab.card_for("withdrawn")).to_have_count(0)


def test_an_ask_past_its_deadline_leaves_a_notice(inbox: Inbox, open_tab: Any) -> None:
    from playwright.sync_api import expect

    tab = open_tab(page_of(inbox))
    expired = ask(inbox, "late", agent="agent B", time_left=2)
    card = tab.card_for("late")
    expect(card.locator(".time-left")).to_contain_text("left to answer")
    # the server expires it at its deadline; the page says so and keeps the card
    expect(card.get_by_role("alert")).to_have_text(
        "The time to answer ran out: nothing was sent.", timeout=30_000
    )
    expect(card.locator(".time-left")).to_have_count(0)
    assert settled(inbox, expired)["state"] == "expired"


def test_keyboard_only_answering_from_a_notifications_link(inbox: Inbox, open_tab: Any) -> None:
    from playwright.sync_api import expect

    ask(inbox, "older", agent="agent A")
    target = ask(inbox, "linked", agent="agent B")
    tab = open_tab(page_of(inbox))  # signed in once
    tab.page.goto(page_of(inbox, f"/asks/{target}", token=False))
    expect(tab.page.locator("#status")).to_have_text("Connected")
    card = tab.card_for("linked")
    expect(card).to_have_class(re.compile(r"\bnamed\b"))
    expect(card.get_by_role("radio", name="npm", exact=True)).to_be_focused()
    keyboard = tab.page.keyboard
    keyboard.press("ArrowDown")  # pnpm
    keyboard.press("Enter")
    expect(tab.page.locator(".receipt")).to_contain_text("→ pnpm")
    assert settled(inbox, target)["answer"] == answer_of("linked", "pnpm")
    # the focus moved on to the ask still waiting: Tab then Enter on Decline, keys only
    older = tab.card_for("older")
    expect(older.get_by_role("radio", name="npm", exact=True)).to_be_focused()
    for _ in range(4):  # the "Other" text box, Notes, Cancel, Decline
        keyboard.press("Tab")
    expect(older.get_by_role("button", name="Decline")).to_be_focused()
    keyboard.press("Enter")
    expect(tab.page.locator(".receipt")).to_have_count(2)
    assert inbox.pending() == []


def test_a_page_opened_on_many_asks_builds_them_all_oldest_first(
    inbox: Inbox, open_tab: Any
) -> None:
    # the first screenful is built at once and the rest after the first paint; a link to
    # one of the last asks still finds it at once, and a new ask still comes last
    from playwright.sync_api import expect

    ids = [ask(inbox, f"q{number}", agent=f"agent {number}") for number in range(45)]
    tab = open_tab(page_of(inbox))  # signed in once
    tab.page.goto(page_of(inbox, f"/asks/{ids[-1]}", token=False))
    expect(tab.page.locator("#status")).to_have_text("Connected")
    linked = tab.card_for("q44")
    expect(linked).to_have_class(re.compile(r"\bnamed\b"))
    expect(linked.get_by_role("radio", name="npm", exact=True)).to_be_focused()
    nav = tab.page.get_by_role("navigation", name="Pending asks")
    expect(nav).to_contain_text("45 asks waiting:")
    expect(tab.page).to_have_title("(45) questions · user-interaction")
    ask(inbox, "late", agent="agent late")
    agents = [f"agent {number}" for number in range(45)] + ["agent late"]
    expect(tab.page.locator(".card .agent")).to_have_text(agents)
    expect(nav).to_contain_text("46 asks waiting:")
    expect(nav.get_by_role("button")).to_have_count(46)


def test_a_phone_sized_screen(inbox: Inbox, open_tab: Any) -> None:
    from playwright.sync_api import expect

    for number in range(3):
        ask(inbox, f"q{number}", agent=f"agent {number}", time_left=600)
    tab = open_tab(page_of(inbox), viewport={"width": 390, "height": 844})
    expect(tab.cards()).to_have_count(3)
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
    nav = tab.page.get_by_role("navigation", name="Pending asks")
    nav.get_by_role("button", name=re.compile(r"^3\. agent 2: ")).click()
    card = tab.card_for("q2")
    expect(card.get_by_role("radio", name="npm", exact=True)).to_be_focused()
    expect(card.get_by_role("button", name="Submit")).to_be_visible()
    card.get_by_role("radio", name="pnpm", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    expect(tab.cards()).to_have_count(2)
    expect(nav).to_be_in_viewport()  # it stays at the top
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_preview_renders_as_on_the_web_providers_page(inbox: Inbox, open_tab: Any) -> None:
    """The inbox's cards carry the same preview trees: headings, lists and highlighted
    code render here too, and markup in a preview stays text."""
    from playwright.sync_api import expect

    preview = (
        "## pnpm\n\n- strict\n- fast\n\n```python\nimport pnpm  # <b>not bold</b>\n```\n\n"
        "<img src=x onerror=window.owned=1>"
    )
    question = {
        "id": "pkg",
        "question": QUESTION_TEXT,
        "options": [{"label": "pnpm", "preview": preview}, {"label": "npm"}],
    }
    ask(inbox, "pkg", question=question)
    tab = open_tab(page_of(inbox))
    panel = tab.card_for("pkg").get_by_role("region", name="Preview")
    expect(panel.get_by_role("heading", name="pnpm")).to_be_visible()
    expect(panel.locator("ul > li")).to_have_text(["strict", "fast"])
    code = panel.locator('pre[data-language="python"] > code')
    expect(code).to_have_text("import pnpm  # <b>not bold</b>")
    expect(code.locator(".tok-k")).to_have_text("import")
    expect(code.locator(".tok-c")).to_have_text("# <b>not bold</b>")
    assert code.locator(".tok-k").evaluate("(e) => getComputedStyle(e).color") != code.evaluate(
        "(e) => getComputedStyle(e).color"
    )
    expect(panel).to_contain_text("<img src=x onerror=window.owned=1>")
    assert tab.page.locator("img, b").count() == 0
    assert tab.page.evaluate("() => window.owned") is None
    # the list the command line reads is the agent's request as it was posted
    (listed,) = inbox.call("GET", "/api/asks").body["asks"]
    assert listed["request"]["questions"][0]["options"][0] == {"label": "pnpm", "preview": preview}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_passes_axe_wcag_a_and_aa(inbox: Inbox, open_tab: Any, scheme: str) -> None:
    """axe-core finds no WCAG 2.1 A/AA violation: cards of several agents with their age
    and time left, the list of asks, a card named by a link, a notice and a receipt."""
    from playwright.sync_api import expect

    checker = axe()
    named = ask(inbox, "named", agent="agent A", time_left=600)
    ask(inbox, "other", agent="agent B")
    gone = ask(inbox, "gone", agent="agent C")
    sent = ask(inbox, "sent", agent="agent D")
    tab = open_tab(page_of(inbox), color_scheme=scheme, viewport={"width": 1280, "height": 900})
    tab.page.goto(page_of(inbox, f"/asks/{named}", token=False))
    expect(tab.cards()).to_have_count(4)
    tab.card_for("gone").get_by_role("textbox", name="Other answer").fill("typed")
    inbox.call("POST", f"/api/asks/{gone}/withdraw", {})
    expect(tab.page.get_by_role("button", name="Dismiss")).to_be_visible()
    card = tab.card_for("sent")
    card.get_by_role("radio", name="npm", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    expect(tab.page.locator(".receipt")).to_have_count(1)
    assert settled(inbox, sent)["state"] == "answered"
    options = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
    violations = checker.run(tab.page, options=options).response["violations"]
    assert violations == [], [
        (v["id"], [node["target"] for node in v["nodes"]]) for v in violations
    ]


def test_the_access_notice_and_the_session_cookie(inbox: Inbox, open_tab: Any) -> None:
    from playwright.sync_api import expect

    target = ask(inbox, "linked", agent="agent A")
    link = page_of(inbox, f"/asks/{target}", token=False)
    tab = open_tab(link, connected=False)
    tab.page.goto(link)
    # no session yet: the API refuses, and the page says how to get in
    access = tab.page.get_by_role("region", name="This browser is not signed in to the inbox")
    expect(access).to_be_visible()
    expect(access).to_contain_text("user-interaction inbox open")
    expect(tab.page.locator("#status")).to_have_text("Not signed in")
    expect(tab.cards()).to_have_count(0)
    tab.forget_errors()  # Chromium logs the refused requests (403), as it should

    tab.page.goto(page_of(inbox))  # the tokenised address, once
    expect(tab.page.locator("#status")).to_have_text("Connected")
    assert tab.page.url == f"{inbox.address.base}/"  # the token left the address bar
    (cookie,) = tab.context.cookies()
    assert cookie["name"] == SESSION_COOKIE
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["secure"]) == (True, "Strict", False)
    assert inbox.address.token not in cookie["value"]
    assert tab.page.evaluate("document.cookie") == ""  # no script can read it

    tab.page.goto(link)  # the link without the token now works
    expect(tab.page.locator("#status")).to_have_text("Connected")
    expect(tab.card_for("linked")).to_have_class(re.compile(r"\bnamed\b"))
    expect(access).to_be_hidden()

    reply = {"action": "decline", "by": "inbox answer"}
    assert inbox.call("POST", f"/api/asks/{target}/settle", reply).status == 200
    expect(tab.cards()).to_have_count(0)
    tab.page.goto(link)  # a link to an ask no longer waiting says what became of it
    expect(tab.page.locator("#linked")).to_have_text(
        "The ask you followed, from agent A, is no longer waiting: declined by inbox answer."
    )
