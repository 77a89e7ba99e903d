"""The page in a real browser (Playwright driving Debian's chromium): the page's acceptance
checks, one test each (the security ones also without a browser in test_web_http.py),
keyboard-only answering, and the README's screenshots."""

from __future__ import annotations

import os
import re
import shutil
import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser_support import Tab, axe
from web_support import (
    PROMPTLY,
    Agent,
    Client,
    error_of,
    package_question,
    previewed_question,
    wait_until,
)

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    AbortController,
    AskUserQuestionItem,
    AskUserQuestionOption,
    UserInteraction,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser
    from user_interaction_web import WebProvider

pytestmark = pytest.mark.browser

QUESTION = "Which package manager should I use?"


def expect(locator: object) -> object:
    from playwright.sync_api import expect

    return expect(locator)  # type: ignore[call-overload]


# -- 1. answers ------------------------------------------------------------------------------


def test_check_1_radio_and_submit(tab: Tab, agent: Agent) -> None:
    future = agent.ask(package_question())
    card = tab.card(QUESTION)
    card.get_by_role("radio", name="npm", exact=True).check()
    started = time.perf_counter()
    card.get_by_role("button", name="Submit").click()
    answer = future.result(PROMPTLY)
    assert time.perf_counter() - started < PROMPTLY
    assert answer.get("pkg").selected == ("npm",)  # type: ignore[union-attr]
    expect(tab.cards()).to_have_count(0)


def test_check_1_checkboxes_keep_the_offered_order(tab: Tab, agent: Agent) -> None:
    future = agent.ask(package_question(multi=True))
    card = tab.card(QUESTION)
    card.get_by_role("checkbox", name="yarn", exact=True).check()
    card.get_by_role("checkbox", name="pnpm", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    assert future.result(PROMPTLY).get("pkg").selected == ("pnpm", "yarn")  # type: ignore[union-attr]


def test_check_1_other_text_replaces_the_choice(tab: Tab, agent: Agent) -> None:
    single = agent.ask(package_question("one"))
    multi = agent.ask(package_question("many", multi=True))
    expect(tab.cards()).to_have_count(2)
    first, second = tab.card_for("one"), tab.card_for("many")
    first.get_by_role("radio", name="npm", exact=True).check()
    first.get_by_role("textbox", name="Other answer").fill("bun, pinned")
    expect(first.get_by_role("radio", name="Other…")).to_be_checked()
    first.get_by_role("button", name="Submit").click()
    item = single.result(PROMPTLY).get("one")
    assert item is not None
    assert (item.selected, item.custom) == ((), "bun, pinned")

    second.get_by_role("checkbox", name="pnpm", exact=True).check()
    second.get_by_role("textbox", name="Other answer").fill("whatever CI has")
    second.get_by_role("button", name="Submit").click()
    item = multi.result(PROMPTLY).get("many")
    assert item is not None
    assert (item.selected, item.custom) == ((), "whatever CI has")


def test_free_text_and_skipped_questions(tab: Tab, agent: Agent) -> None:
    future = agent.ask(
        AskUserQuestionItem("name", "What should the project be called?"),
        package_question(),
    )
    card = tab.card("What should the project be called?")
    card.get_by_role("textbox", name="Your answer").fill("Bike Shed")
    card.get_by_role("button", name="Submit").click()
    card.get_by_role("dialog").get_by_role("button", name="Send anyway").click()
    answer = future.result(PROMPTLY)
    assert answer.get("name").custom == "Bike Shed"  # type: ignore[union-attr]
    pkg = answer.get("pkg")
    assert pkg is not None
    assert (pkg.selected, pkg.custom) == ((), None)  # skipped


def test_the_question_detail_and_descriptions_are_shown(tab: Tab, agent: Agent) -> None:
    agent.ask(package_question())
    card = tab.card(QUESTION)
    for text in (
        "Package manager",
        QUESTION,
        "The lockfile decides what CI installs.",
        "fast, strict",
        "the default",
    ):
        expect(card.get_by_text(text, exact=True)).to_be_visible()
    # real <label>s name the controls; the description describes, it does not name
    radio = card.get_by_label("pnpm", exact=True)
    expect(radio).to_have_attribute("type", "radio")
    expect(radio).to_have_accessible_description("fast, strict")
    assert card.locator("label").count() >= 5


# -- 2. no answer ----------------------------------------------------------------------------


def test_check_2_cancel_and_decline(tab: Tab, agent: Agent) -> None:
    for button, code in (("Cancel", ASK_CANCELLED), ("Decline", ASK_DECLINED)):
        future = agent.ask(package_question())
        tab.card(QUESTION).get_by_role("button", name=button).click()
        assert error_of(future).code == code
        expect(tab.cards()).to_have_count(0)


# -- 3. the agent gives up -------------------------------------------------------------------


def pending(tab: Tab) -> object:
    """The cards still waiting for an answer (not the ones the agent gave up on)."""
    return tab.page.locator(".card:not([data-state=withdrawn])")


def test_check_3_abort_and_timeout_remove_the_card_from_every_tab(
    browser: Browser, provider: WebProvider, tab: Tab, agent: Agent
) -> None:
    other = Tab(browser, tab.url)
    try:
        controller = AbortController()
        aborted = agent.ask(package_question(), signal=controller.signal)
        expect(tab.cards()).to_have_count(1)
        expect(other.cards()).to_have_count(1)
        ask_id = tab.cards().first.get_attribute("data-ask-id")
        controller.abort()
        assert error_of(aborted).code == ASK_ABORTED
        for each in (tab, other):  # no longer pending; the card stays to say why
            expect(pending(each)).to_have_count(0, timeout=PROMPTLY * 1000)
            expect(each.cards().get_by_role("alert")).to_have_text(
                "The agent withdrew this question: nothing was sent."
            )
            each.cards().get_by_role("button", name="Dismiss").click()
            expect(each.cards()).to_have_count(0)
        assert tab.post({"askId": ask_id, "action": "cancel"})["status"] == 409

        timed_out = agent.ask(package_question(), timeout=0.5)
        expect(other.cards()).to_have_count(1)
        ask_id = other.cards().first.get_attribute("data-ask-id")
        assert error_of(timed_out).code == ASK_TIMEOUT
        for each in (tab, other):
            expect(pending(each)).to_have_count(0, timeout=PROMPTLY * 1000)
            expect(each.cards().get_by_role("alert")).to_contain_text("The time to answer ran out")
        late = {"askId": ask_id, "action": "accept", "answers": []}
        assert other.post(late)["status"] == 409
        assert other.errors == []
    finally:
        other.close()


def test_the_time_left_counts_down_on_the_card(tab: Tab, agent: Agent) -> None:
    agent.ask(package_question("limited"), timeout=60)
    agent.ask(package_question("open"), timeout=None)  # type: ignore[arg-type]
    timer = tab.card_for("limited").get_by_role("timer")
    expect(timer).to_have_text(re.compile(r"^⏱ (1:00|0:[0-5]\d) left to answer$"))
    first = timer.text_content()
    assert first is not None
    # by itself, a second or so later (the page's own clock, no event from the agent)
    expect(timer).not_to_have_text(first, timeout=PROMPTLY * 1000)
    expect(timer).to_have_text(re.compile(r"^⏱ 0:[0-5]\d left to answer$"))
    expect(tab.card_for("open").get_by_role("timer")).to_have_count(0)  # no limit, no clock
    tab.page.reload()  # a page opened later counts from what is left, not from the start
    expect(tab.card_for("limited").get_by_role("timer")).to_have_text(
        re.compile(r"^⏱ 0:[0-5]\d left to answer$")
    )


def test_an_expired_ask_keeps_what_was_typed_and_says_why(tab: Tab, agent: Agent) -> None:
    future = agent.ask(
        package_question(), AskUserQuestionItem("name", "What name?"), timeout=PROMPTLY
    )
    card = tab.card(QUESTION)
    card.get_by_role("textbox", name="Other answer").fill("bun, half typed")
    card.get_by_role("textbox", name="Your answer").focus()
    tab.page.keyboard.type("Shed")
    assert error_of(future).code == ASK_TIMEOUT
    alert = card.get_by_role("alert")
    expect(alert).to_have_text(
        "The time to answer ran out: nothing was sent. What you typed is kept below to copy."
    )
    expect(card.get_by_role("textbox", name="Other answer")).to_have_value("bun, half typed")
    expect(card.get_by_role("textbox", name="Your answer")).to_have_value("Shed")
    expect(card.get_by_role("textbox", name="Your answer")).not_to_be_editable()
    expect(card.get_by_role("button", name="Submit")).to_be_disabled()
    expect(card.get_by_role("radio", name="npm", exact=True)).to_be_disabled()
    expect(card.get_by_role("button", name="Dismiss")).to_be_focused()  # it had the focus
    expect(tab.page).to_have_title("user-interaction")  # nothing is waiting any more
    tab.page.keyboard.press("Enter")
    expect(tab.cards()).to_have_count(0)


# -- 4. reload -------------------------------------------------------------------------------


def test_check_4_reload_brings_every_pending_card_back(tab: Tab, agent: Agent) -> None:
    first = agent.ask(package_question("first"))
    expect(tab.cards()).to_have_count(1)
    second = agent.ask(package_question("second", multi=True))
    expect(tab.cards()).to_have_count(2)
    second_id = tab.card_for("second").get_attribute("data-ask-id")
    tab.page.reload()
    expect(tab.page.locator("#status")).to_have_text("Connected")
    expect(tab.cards()).to_have_count(2)
    assert tab.cards().nth(1).get_attribute("data-ask-id") == second_id  # arrival order kept
    tab.cards().nth(1).get_by_role("checkbox", name="npm", exact=True).check()
    tab.cards().nth(1).get_by_role("button", name="Submit").click()
    assert second.result(PROMPTLY).get("second").selected == ("npm",)  # type: ignore[union-attr]
    expect(tab.cards()).to_have_count(1)
    assert not first.done()
    tab.cards().first.get_by_role("radio", name="yarn", exact=True).check()
    tab.cards().first.get_by_role("button", name="Submit").click()
    assert first.result(PROMPTLY).get("first").selected == ("yarn",)  # type: ignore[union-attr]


# -- 5. two tabs -----------------------------------------------------------------------------


def test_check_5_an_answer_in_one_tab_removes_the_card_from_the_other(
    browser: Browser, tab: Tab, agent: Agent
) -> None:
    other = Tab(browser, tab.url)
    try:
        future = agent.ask(package_question())
        expect(other.cards()).to_have_count(1)
        ask_id = other.cards().first.get_attribute("data-ask-id")
        tab.card(QUESTION).get_by_role("radio", name="pnpm", exact=True).check()
        tab.card(QUESTION).get_by_role("button", name="Submit").click()
        assert future.result(PROMPTLY).get("pkg").selected == ("pnpm",)  # type: ignore[union-attr]
        expect(other.cards()).to_have_count(0, timeout=PROMPTLY * 1000)
        again = {"askId": ask_id, "action": "accept", "answers": [{"id": "pkg"}]}
        assert other.post(again)["status"] == 409
        assert other.errors == []
    finally:
        other.close()


# -- 6. invalid answers ----------------------------------------------------------------------


def test_check_6_invalid_answers_are_422_and_the_ask_stays_pending(tab: Tab, agent: Agent) -> None:
    future = agent.ask(package_question(), AskUserQuestionItem("name", "What name?"))
    card = tab.card(QUESTION)
    ask_id = card.get_attribute("data-ask-id")
    for answers, message in (
        (
            [{"id": "pkg", "selected": ["bun"]}],
            "answers[0].selected[0]: 'bun' was not offered for question 'pkg'",
        ),
        (
            [{"id": "pkg", "selected": ["pnpm", "npm"]}],
            "answers[0].selected: question 'pkg' is single-select but 2 labels were selected",
        ),
        ([{"id": "name", "selected": [], "custom": " "}], "answers[0].custom: must not be blank"),
    ):
        reply = tab.post({"askId": ask_id, "action": "accept", "answers": answers})
        path, _, said = message.partition(": ")
        assert reply == {
            "status": 422,
            "body": {
                "error": message,
                "code": "INVALID_ANSWER",
                "problems": [{"path": path, "message": said, "code": "INVALID_ANSWER"}],
            },
        }
    assert not future.done()
    expect(tab.cards()).to_have_count(1)

    # the page shows the server's refusal in the card, which stays usable
    card.get_by_role("textbox", name="Your answer").fill("Shed")
    card.get_by_role("radio", name="npm", exact=True).evaluate("input => { input.value = 'bun' }")
    card.get_by_role("radio", name="npm", exact=True).check()
    tab.expect_status(422)
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("alert")).to_have_text(
        "answers[0].selected[0]: 'bun' was not offered for question 'pkg'"
    )
    # "Other…" without text is caught on the page
    card.get_by_role("radio", name="Other…").check()
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("alert")).to_contain_text("Type your own answer")
    assert not future.done()
    card.get_by_role("radio", name="yarn", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    assert future.result(PROMPTLY).get("pkg").selected == ("yarn",)  # type: ignore[union-attr]


# -- 7 and 8. the guards, as the browser meets them ------------------------------------------


def test_check_7_a_page_without_the_token_sees_nothing(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    agent.ask(package_question())
    url = provider.start()
    stranger = Tab(browser, url, connected=False)
    try:
        for address in (url.split("#")[0], url.split("#")[0] + "#wrong-token"):
            stranger.page.goto(address)
            expect(stranger.page.locator("#status")).to_contain_text("Not connected")
            expect(stranger.cards()).to_have_count(0)
        # DNS rebinding: a name the attacker points at 127.0.0.1 gets no page at all
        response = stranger.page.goto(url.replace("127.0.0.1", "rebound.example"))
        assert response is not None
        assert response.status == 421
        stranger.expect_status(421)
    finally:
        stranger.close()


def test_check_8_every_response_carries_the_security_headers_and_csp_holds(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    agent.ask(package_question())
    context = browser.new_context()
    page = context.new_page()
    headers: dict[str, dict[str, str]] = {}
    page.on("response", lambda response: headers.update({response.url: response.all_headers()}))
    try:
        page.goto(provider.start())
        expect(page.locator(".card")).to_have_count(1)
        assert len(headers) >= 3  # the page, its script and style sheet
        for url, sent in headers.items():
            assert "script-src 'self'" in sent["content-security-policy"], url
            assert sent["x-content-type-options"] == "nosniff", url
        page.evaluate("""() => {
            const script = document.createElement("script");
            script.textContent = "window.injected = 1";
            document.body.append(script);
        }""")
        assert page.evaluate("() => window.injected") is None  # no inline script runs
    finally:
        context.close()


# -- 9. model text ---------------------------------------------------------------------------


def test_check_9_markup_in_model_text_stays_text(tab: Tab, agent: Agent) -> None:
    img = "<img src=x onerror=window.owned=1>"
    script = "<script>window.owned=2</script>"
    label = f"npm {img}"
    question = AskUserQuestionItem(
        "evil",
        f"Which one? {script}",
        header=f"<b>{img}</b>",
        detail=f"Detail {script} {img}",
        options=[
            AskUserQuestionOption(label, description=f"{img} described"),
            AskUserQuestionOption("</label><button>Submit</button>"),
        ],
    )
    future = agent.ask(question)
    card = tab.card("Which one?")
    expect(card.get_by_text(f"Which one? {script}", exact=True)).to_be_visible()
    expect(card.get_by_text(f"Detail {script} {img}", exact=True)).to_be_visible()
    assert tab.page.locator("img, b, .card script").count() == 0
    assert card.get_by_role("button").count() == 3  # Cancel, Decline, Submit
    card.get_by_role("radio", name=label, exact=True).check()
    card.get_by_role("button", name="Submit").click()
    assert future.result(PROMPTLY).get("evil").selected == (label,)  # type: ignore[union-attr]
    assert tab.page.evaluate("() => window.owned") is None


# -- 10. disposal ----------------------------------------------------------------------------


def test_check_10_dispose_with_a_page_open_fails_the_ask_and_frees_the_port(
    provider: WebProvider, tab: Tab
) -> None:
    ui = UserInteraction()
    ui.register_provider(provider)
    agent = Agent(ui)
    try:
        future = agent.ask(package_question())
        expect(tab.cards()).to_have_count(1)
        port = int(tab.url.split(":")[2].split("/")[0])
        started = time.perf_counter()
        ui.close()
        assert error_of(future).code == PROVIDER_DISPOSED
        with socket.socket() as probe:  # nothing listens on the port any more
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("127.0.0.1", port))
            probe.listen()
        assert time.perf_counter() - started < PROMPTLY
        # the page says the agent is gone (not "Reconnecting…" for ever), and so does the card
        expect(tab.page.locator("#status")).to_have_text(
            "The agent has stopped asking: this page can be closed.", timeout=PROMPTLY * 1000
        )
        expect(tab.cards().get_by_role("alert")).to_have_text(
            "The agent stopped asking: nothing was sent."
        )
        expect(tab.cards().get_by_role("button", name="Submit")).to_be_disabled()
    finally:
        agent.close()
    # and it stopped trying to reconnect: no failed requests in the console


def test_a_sent_answer_leaves_a_receipt(tab: Tab, agent: Agent) -> None:
    sent = agent.ask(package_question("one"), AskUserQuestionItem("name", "What name?"))
    card = tab.card(QUESTION)
    card.get_by_role("radio", name="npm", exact=True).check()
    card.get_by_role("textbox", name="Your answer").fill("Shed")
    card.get_by_role("button", name="Submit").click()
    assert sent.result(PROMPTLY).get("one").selected == ("npm",)  # type: ignore[union-attr]
    receipts = tab.page.locator(".receipt")
    # it says what was sent, question by question
    sent_text = f"✓ Sent to the agent:{QUESTION} → npmWhat name? → Shed"
    expect(receipts).to_have_text([sent_text])
    expect(receipts.first).to_have_role("status")
    cancelled = agent.ask(package_question("two"))
    tab.card(QUESTION).get_by_role("button", name="Cancel").click()
    assert error_of(cancelled).code == ASK_CANCELLED
    expect(receipts).to_have_text([sent_text, f"Cancelled: {QUESTION}"])
    expect(tab.cards()).to_have_count(0)


def test_the_page_keeps_its_width_when_a_card_with_previews_comes(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    tab = Tab(browser, provider.start(), viewport={"width": 1280, "height": 900})
    try:
        agent.ask(package_question("plain"))
        expect(tab.cards()).to_have_count(1)
        main = tab.page.locator("main")
        plain = main.bounding_box()
        assert plain is not None
        agent.ask(previewed_question("previewed"))
        expect(tab.cards()).to_have_count(2)
        both = main.bounding_box()
        assert both is not None
        # the layout does not narrow or widen (nor move sideways)
        assert (both["x"], both["width"]) == (plain["x"], plain["width"])
        assert tab.errors == []
    finally:
        tab.close()


# -- option previews and answer notes ---------------------------------------------------------


def test_the_focused_options_preview_is_shown_on_single_and_multi_select(
    tab: Tab, agent: Agent
) -> None:
    future = agent.ask(previewed_question("one"), previewed_question("many", multi=True))
    card = tab.card(QUESTION)
    for question_id, role in (("one", "radio"), ("many", "checkbox")):
        question = card.locator(f'fieldset[data-id="{question_id}"]')
        preview = question.get_by_role("region", name="Preview")
        # nothing focused or checked yet: the first option's
        expect(preview).to_contain_text("Preview of pnpm")
        expect(preview.locator("pre > code")).to_have_text("pnpm install --frozen-lockfile")
        expect(preview.locator("p code")).to_have_text("node_modules")
        expect(preview.locator("strong", has_text="fast")).to_have_count(1)
        npm = question.get_by_role(role, name="npm", exact=True)
        npm.focus()
        expect(preview).to_contain_text("Preview of npm")
        expect(preview.get_by_role("heading", name="npm", exact=True)).to_be_visible()
        expect(preview.locator("li")).to_have_text(["no extra install", "package-lock.json"])
        expect(npm).to_have_attribute("aria-details", id_of(preview))
        question.get_by_role(role, name="yarn", exact=True).focus()
        expect(preview).to_contain_text("This option has no preview.")
        question.get_by_role(role, name="pnpm", exact=True).check()
        question.get_by_role(role, name="pnpm", exact=True).blur()
        expect(preview).to_contain_text("Preview of pnpm")  # nothing focused: the checked one
        question.locator(".option").nth(1).hover()
        expect(preview).to_contain_text("Preview of npm")  # the pointer wins while it is there
        tab.page.mouse.move(0, 0)
        expect(preview).to_contain_text("Preview of pnpm")
    card.get_by_role("button", name="Submit").click()
    answer = future.result(PROMPTLY)
    assert answer.get("one").selected == ("pnpm",)  # type: ignore[union-attr]
    assert answer.get("many").selected == ("pnpm",)  # type: ignore[union-attr]


def id_of(locator: object) -> str:
    element_id = locator.get_attribute("id")  # type: ignore[attr-defined]
    assert isinstance(element_id, str)
    return element_id


def test_previews_sit_beside_the_options_or_under_them_on_narrow_screens(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    agent.ask(previewed_question())
    for width, beside in ((1000, True), (420, False)):
        tab = Tab(browser, provider.start(), viewport={"width": width, "height": 800})
        try:
            card = tab.card(QUESTION)
            choices = card.locator(".choices").bounding_box()
            preview = card.get_by_role("region", name="Preview").bounding_box()
            assert choices is not None
            assert preview is not None
            if beside:
                assert preview["x"] >= choices["x"] + choices["width"]
                assert abs(preview["y"] - choices["y"]) < 20
            else:
                assert preview["y"] >= choices["y"] + choices["height"]
                assert preview["width"] > 0.9 * choices["width"]
            assert tab.page.evaluate("() => document.documentElement.scrollWidth") <= width
            assert tab.errors == []
        finally:
            tab.close()


def test_the_tab_order_does_not_depend_on_the_focused_option(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    wide = "```sh\n" + "pnpm install --frozen-lockfile " * 12 + "\n```"
    agent.ask(
        AskUserQuestionItem(
            "pkg",
            QUESTION,
            options=[
                AskUserQuestionOption("pnpm", preview=wide),  # its code scrolls sideways
                AskUserQuestionOption("npm", preview="Ships with Node."),
            ],
        )
    )
    tab = Tab(browser, provider.start(), viewport={"width": 1000, "height": 800})
    try:
        card = tab.card(QUESTION)

        def stops_after(label: str) -> list[str]:
            card.get_by_role("radio", name=label, exact=True).focus()
            expect(card.get_by_role("region", name="Preview")).to_contain_text(
                "frozen-lockfile" if label == "pnpm" else "Ships with Node."
            )
            stops = []
            for _ in range(4):
                tab.page.keyboard.press("Tab")
                stops.append(
                    tab.page.evaluate(
                        "() => { const e = document.activeElement;"
                        " return e.getAttribute('aria-label') || e.labels?.[0]?.textContent"
                        " || e.textContent; }"
                    )
                )
            return stops

        expected = ["Other answer", "Preview", "Notes (optional)", "Cancel"]
        assert stops_after("pnpm") == expected
        assert stops_after("npm") == expected
        panel = card.get_by_role("region", name="Preview")
        panel.focus()
        card.get_by_role("radio", name="pnpm", exact=True).hover()  # show the wide one
        tab.page.keyboard.press("End")
        before = panel.evaluate("(e) => e.scrollLeft")
        tab.page.keyboard.press("ArrowRight")  # the keys scroll the panel itself
        expect(panel).not_to_have_js_property("scrollLeft", before)
        for label in ("pnpm", "npm", "Other…"):  # big enough to hit, not 13 px
            box = card.get_by_role("radio", name=label, exact=True).bounding_box()
            assert box is not None
            assert min(box["width"], box["height"]) >= 18, box
        assert tab.errors == []
    finally:
        tab.close()


def test_on_a_phone_the_preview_stays_in_sight_of_the_options(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    labels = [f"option {n}" for n in range(1, 17)]  # taller than a phone's screen
    agent.ask(
        AskUserQuestionItem(
            "many",
            QUESTION,
            options=[
                AskUserQuestionOption(label, preview=f"**{label}** in detail") for label in labels
            ],
        )
    )
    tab = Tab(browser, provider.start(), viewport={"width": 390, "height": 844})
    try:
        card = tab.card(QUESTION)
        panel = card.get_by_role("region", name="Preview")
        for label in ("option 1", "option 8"):
            card.get_by_role("radio", name=label, exact=True).focus()
            expect(panel).to_contain_text(f"{label} in detail")
            expect(panel).to_be_in_viewport()  # not after all sixteen options, off screen
        box = panel.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= 844
        assert tab.errors == []
    finally:
        tab.close()


def test_markdown_previews_render_safely(tab: Tab, agent: Agent) -> None:
    hostile = (
        "# Title <img src=x onerror=window.owned=1>\n\n"
        "<script>window.owned=2</script>\n\n"
        "See [the docs](javascript:window.owned=3) and ![a picture](x) and "
        '<a href="https://evil.example">a link</a> and <https://example.org/page>.\n\n'
        "```html\n<img src=x onerror=window.owned=4>\n```\n\n"
        "- *em* **strong** `<b>code</b>` <iframe src=x></iframe>\n\n"
        "| a | b |\n|---|---|\n| <img src=x onerror=window.owned=5> | ok |"
    )
    question = AskUserQuestionItem(
        "evil",
        "Which one?",
        options=[AskUserQuestionOption("plain"), AskUserQuestionOption("evil", preview=hostile)],
    )
    future = agent.ask(question)
    card = tab.card("Which one?")
    card.get_by_role("radio", name="evil", exact=True).focus()
    preview = card.get_by_role("region", name="Preview")
    expect(preview).to_contain_text("Preview of evil")
    for literal in (
        "Title <img src=x onerror=window.owned=1>",
        "<script>window.owned=2</script>",
        '<a href="https://evil.example">a link</a>',
        "<iframe src=x></iframe>",
    ):
        expect(preview).to_contain_text(literal)
    expect(preview.get_by_role("heading")).to_have_text("Title <img src=x onerror=window.owned=1>")
    expect(preview.locator("pre code")).to_have_text("<img src=x onerror=window.owned=4>")
    expect(preview.locator("code").last).to_have_text("<b>code</b>")
    expect(preview.locator(".markdown em")).to_have_text("em")
    expect(preview.locator(".markdown strong")).to_have_text("strong")
    expect(preview.locator("td").first).to_have_text("<img src=x onerror=window.owned=5>")
    # a javascript: link is no link at all (the Markdown shows as it was written); others
    # show where they point and are not links either: nothing to click, nothing to follow
    expect(preview).to_contain_text("[the docs](javascript:window.owned=3)")
    expect(preview.locator(".md-link", has_text="the docs")).to_have_count(0)
    expect(preview.locator(".md-link", has_text="https://example.org/page")).to_have_count(1)
    expect(preview).to_contain_text("image: a picture")
    dangerous = "img, script, iframe, a, [href], [src], [onerror], object, embed, svg, style"
    assert tab.page.locator("body").locator(dangerous).count() == 0  # the page has none
    url = tab.page.url
    preview.locator(".md-link", has_text="https://example.org/page").click()
    assert tab.page.url == url
    assert tab.page.evaluate("() => window.owned") is None
    card.get_by_role("radio", name="evil", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    assert future.result(PROMPTLY).get("evil").selected == ("evil",)  # type: ignore[union-attr]
    assert tab.page.evaluate("() => window.owned") is None


CODE_PREVIEW = (
    "## Retry with backoff\n\n"
    "- waits *longer* each time\n- gives up after **five** tries\n\n"
    "```python\n"
    "def fetch(url: str) -> bytes:  # retried\n"
    '    return get(url, timeout=5, label="<img src=x onerror=window.owned=1>")\n'
    "```\n\n"
    "<script>window.owned=2</script> and <img src=x onerror=window.owned=3>"
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_code_preview_is_highlighted_and_its_markdown_rendered(
    browser: Browser, provider: WebProvider, agent: Agent, scheme: str
) -> None:
    """The server's tree becomes elements: a heading, a list, and the fenced code's tokens
    in coloured spans; markup in the preview, in code or not, stays text."""
    future = agent.ask(
        AskUserQuestionItem(
            "retry",
            "How should the client retry?",
            options=[
                AskUserQuestionOption("Backoff", preview=CODE_PREVIEW),
                AskUserQuestionOption("Never"),
            ],
        )
    )
    tab = Tab(browser, provider.start(), color_scheme=scheme)
    try:
        card = tab.card("How should the client retry?")
        preview = card.get_by_role("region", name="Preview")
        expect(preview.get_by_role("heading", name="Retry with backoff")).to_be_visible()
        expect(preview.locator("ul > li")).to_have_text(
            ["waits longer each time", "gives up after five tries"]
        )
        expect(preview.locator("li em")).to_have_text("longer")
        code = preview.locator('pre[data-language="python"] > code')
        expect(code).to_contain_text("def fetch(url: str) -> bytes:  # retried")
        expect(code.locator(".tok-k").first).to_have_text("def")
        expect(code.locator(".tok-nf")).to_have_text("fetch")
        expect(code.locator(".tok-c")).to_have_text("# retried")
        expect(code.locator(".tok-s").first).to_contain_text("<img src=x onerror=window.owned=1>")
        expect(code.locator(".tok-m")).to_have_text("5")

        def colour(locator: object) -> str:
            value = locator.evaluate("(e) => getComputedStyle(e).color")  # type: ignore[attr-defined]
            assert isinstance(value, str)
            return value

        plain = colour(code)
        kinds = [colour(code.locator(f".tok-{name}").first) for name in ("k", "nf", "c", "s")]
        assert plain not in kinds, (plain, kinds)
        assert len(set(kinds)) == 4, kinds  # keywords, names, comments, strings apart
        expect(preview).to_contain_text(
            "<script>window.owned=2</script> and <img src=x onerror=window.owned=3>"
        )
        assert tab.page.locator("img, script:not([src])").count() == 0
        shots = os.environ.get("USER_INTERACTION_WEB_SCREENSHOTS")
        if shots:
            card.screenshot(path=str(Path(shots) / f"web-code-preview-{scheme}.png"))
        card.get_by_role("radio", name="Backoff").check()
        card.get_by_role("button", name="Submit").click()
        assert future.result(PROMPTLY).get("retry").selected == ("Backoff",)  # type: ignore[union-attr]
        assert tab.page.evaluate("() => window.owned") is None
        assert tab.errors == []
    finally:
        tab.close()


def test_notes_typed_beside_a_selection_come_back(tab: Tab, agent: Agent) -> None:
    future = agent.ask(
        previewed_question("one"),
        package_question("many", multi=True),
        package_question("plain"),
    )
    card = tab.card(QUESTION)
    one = card.locator('fieldset[data-id="one"]')
    many = card.locator('fieldset[data-id="many"]')
    one.get_by_role("radio", name="npm", exact=True).check()
    one.get_by_role("textbox", name="Notes (optional)").fill("  but pin the version\nin CI  ")
    many.get_by_role("checkbox", name="yarn", exact=True).check()
    many.get_by_role("checkbox", name="pnpm", exact=True).check()
    many.get_by_role("textbox", name="Notes (optional)").fill("yarn for the docs only")
    card.locator('fieldset[data-id="plain"]').get_by_role("radio", name="yarn").check()
    card.get_by_role("button", name="Submit").click()
    answer = future.result(PROMPTLY)
    one_item, many_item, plain = answer.get("one"), answer.get("many"), answer.get("plain")
    assert one_item is not None
    assert many_item is not None
    assert plain is not None
    assert (one_item.selected, one_item.notes) == (("npm",), "but pin the version\nin CI")
    assert (many_item.selected, many_item.notes) == (("pnpm", "yarn"), "yarn for the docs only")
    assert (plain.selected, plain.notes) == (("yarn",), None)  # no notes typed: none sent


def test_notes_without_a_selection_are_flagged_and_never_sent(tab: Tab, agent: Agent) -> None:
    posts: list[str] = []
    tab.page.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )
    future = agent.ask(package_question("one"), package_question("many", multi=True))
    card = tab.card(QUESTION)
    one = card.locator('fieldset[data-id="one"]')
    notes = one.get_by_role("textbox", name="Notes (optional)")
    notes.fill("pin it")
    expect(notes).to_have_attribute("aria-invalid", "true")
    expect(notes).to_have_accessible_description("Pick an option for these notes to go with.")
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("alert")).to_contain_text("Notes go beside a chosen option")
    expect(notes).to_be_focused()
    # typed text replaces the choice, so notes cannot go with it either
    one.get_by_role("textbox", name="Other answer").fill("bun")
    expect(notes).to_have_accessible_description(re.compile("Your own answer replaces"))
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("alert")).to_contain_text("your own answer replaces the choice")
    # on a multi-select question too
    one.get_by_role("radio", name="npm", exact=True).check()
    expect(notes).not_to_have_attribute("aria-invalid", "true")
    many_notes = card.locator('fieldset[data-id="many"]').get_by_role(
        "textbox", name="Notes (optional)"
    )
    many_notes.fill("docs too")
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("alert")).to_contain_text("Notes go beside a chosen option")
    expect(many_notes).to_be_focused()
    assert posts == []  # nothing invalid went to the agent
    assert not future.done()
    many_notes.fill("   ")  # blank notes are no notes
    card.get_by_role("button", name="Submit").click()
    card.get_by_role("dialog").get_by_role("button", name="Send anyway").click()
    answer = future.result(PROMPTLY)
    one_item, many_item = answer.get("one"), answer.get("many")
    assert one_item is not None
    assert many_item is not None
    assert (one_item.selected, one_item.custom, one_item.notes) == (("npm",), None, "pin it")
    assert (many_item.selected, many_item.notes) == ((), None)
    expect(tab.cards()).to_have_count(0)  # after the response, so the request was seen
    assert len(posts) == 1


def test_enter_in_a_multi_line_box_makes_a_new_line_and_ctrl_enter_submits(
    tab: Tab, agent: Agent
) -> None:
    posts: list[str] = []
    tab.page.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )
    keyboard = tab.page.keyboard
    future = agent.ask(
        package_question("one"),
        AskUserQuestionItem("name", "What should the project be called?"),
        package_question("two"),
    )
    card = tab.card(QUESTION)
    expect(card.locator("p.keys")).to_contain_text("in a multi-line box it starts a new line")
    expect(card.get_by_role("button", name="Submit")).to_have_accessible_description(
        re.compile("Ctrl\\+Enter submits from anywhere")
    )
    one = card.locator('fieldset[data-id="one"]')
    one.get_by_role("radio", name="npm", exact=True).check()
    notes = one.get_by_role("textbox", name="Notes (optional)")
    notes.focus()
    keyboard.type("but pin it")
    keyboard.press("Enter")
    keyboard.type("in CI")
    free = card.get_by_role("textbox", name="Your answer")
    free.focus()
    keyboard.type("Bike")
    keyboard.press("Enter")
    keyboard.type("Shed")
    expect(notes).to_have_value("but pin it\nin CI")
    expect(free).to_have_value("Bike\nShed")
    assert posts == []  # Enter in a multi-line box sent nothing
    assert not future.done()
    card.locator('fieldset[data-id="two"]').get_by_role("radio", name="yarn", exact=True).check()
    notes.focus()
    keyboard.press("Control+Enter")
    answer = future.result(PROMPTLY)
    one_item, name, two = answer.get("one"), answer.get("name"), answer.get("two")
    assert one_item is not None
    assert name is not None
    assert two is not None
    assert (one_item.selected, one_item.notes) == (("npm",), "but pin it\nin CI")
    assert name.custom == "Bike\nShed"
    assert two.selected == ("yarn",)

    # Cmd+Enter (Meta) submits from a multi-line box as well (once the card just sent has
    # had its reply and left: the agent has its answer before the page has the reply)
    expect(tab.card(QUESTION)).to_have_count(0)
    typed = agent.ask(AskUserQuestionItem("name", "What should the project be called?"))
    free = tab.cards().first.get_by_role("textbox", name="Your answer")
    free.focus()
    keyboard.type("Shed")
    keyboard.press("Meta+Enter")
    assert typed.result(PROMPTLY).get("name").custom == "Shed"  # type: ignore[union-attr]


def test_submitting_with_questions_unanswered_asks_first(tab: Tab, agent: Agent) -> None:
    posts: list[str] = []
    tab.page.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )
    keyboard = tab.page.keyboard
    future = agent.ask(
        package_question("one"),
        AskUserQuestionItem("name", "What should the project be called?", header="Name"),
        package_question("two"),
    )
    card = tab.card(QUESTION)
    card.locator('fieldset[data-id="one"]').get_by_role("radio", name="npm", exact=True).check()
    keyboard.press("Enter")  # on the checked radio: submit
    dialog = card.get_by_role("dialog", name="Send with questions unanswered?")
    expect(dialog).to_be_visible()
    expect(dialog).to_have_accessible_description(
        "2 of 3 questions have no answer: the agent will see them as skipped."
    )
    expect(dialog.get_by_role("listitem")).to_have_text(
        ["Name: What should the project be called?", f"Package manager: {QUESTION}"]
    )
    expect(dialog.get_by_role("button", name="Keep answering")).to_be_focused()
    keyboard.press("Enter")  # the safe choice first: back to the form
    expect(dialog).to_be_hidden()
    expect(card.get_by_role("textbox", name="Your answer")).to_be_focused()
    assert posts == []
    assert not future.done()

    keyboard.type("Bike Shed")
    keyboard.press("Control+Enter")
    expect(dialog).to_have_accessible_description(
        "1 of 3 questions has no answer: the agent will see it as skipped."
    )
    keyboard.press("Escape")  # Esc closes it too, and goes to the question left
    expect(dialog).to_be_hidden()
    expect(
        card.locator('fieldset[data-id="two"]').get_by_role("radio", name="pnpm", exact=True)
    ).to_be_focused()
    assert posts == []

    card.get_by_role("button", name="Submit").click()
    expect(dialog.get_by_role("button", name="Keep answering")).to_be_focused()
    keyboard.press("Tab")
    expect(dialog.get_by_role("button", name="Send anyway")).to_be_focused()
    keyboard.press("Enter")
    answer = future.result(PROMPTLY)
    one, name, two = answer.get("one"), answer.get("name"), answer.get("two")
    assert one is not None
    assert name is not None
    assert two is not None
    assert (one.selected, name.custom, two.selected, two.custom) == (
        ("npm",),
        "Bike Shed",
        (),
        None,
    )
    expect(tab.cards()).to_have_count(0)  # after the response, so the request was seen
    assert len(posts) == 1

    # every question answered: no check, the answers go at once
    answered = agent.ask(package_question("only"))
    tab.cards().first.get_by_role("radio", name="yarn", exact=True).check()
    tab.cards().first.get_by_role("button", name="Submit").click()
    assert answered.result(PROMPTLY).get("only").selected == ("yarn",)  # type: ignore[union-attr]


# -- the page as a whole ---------------------------------------------------------------------


def test_keyboard_only_answering(tab: Tab, agent: Agent) -> None:
    keyboard = tab.page.keyboard
    single = agent.ask(package_question("one"))
    expect(tab.cards()).to_have_count(1)
    expect(tab.cards().first.get_by_role("radio", name="pnpm", exact=True)).to_be_focused()
    keyboard.press("ArrowDown")  # arrows move the choice within the group
    keyboard.press("Enter")
    assert single.result(PROMPTLY).get("one").selected == ("npm",)  # type: ignore[union-attr]

    # Each new card is found by its question: the card just answered may still be on the
    # page, waiting for its reply, when the agent already has the answer and asks again.
    multi = agent.ask(package_question("many", multi=True))
    card = tab.card_for("many")
    expect(card).to_have_count(1)
    card.get_by_role("checkbox", name="pnpm", exact=True).focus()
    keyboard.press("Space")
    keyboard.press("Tab")
    keyboard.press("Tab")
    keyboard.press("Space")  # yarn
    keyboard.press("Enter")
    assert multi.result(PROMPTLY).get("many").selected == ("pnpm", "yarn")  # type: ignore[union-attr]

    other = agent.ask(package_question("typed"))
    card = tab.card_for("typed")
    card.get_by_role("radio", name="pnpm", exact=True).focus()
    keyboard.press("Tab")  # from the radio group to the "Other" text box
    keyboard.type("deno")
    keyboard.press("Enter")
    item = other.result(PROMPTLY).get("typed")
    assert item is not None
    assert (item.selected, item.custom) == ((), "deno")

    declined = agent.ask(package_question("no"))
    card = tab.card_for("no")
    card.get_by_role("radio", name="pnpm", exact=True).focus()
    for _ in range(4):  # Other text, Notes, Cancel, Decline
        keyboard.press("Tab")
    expect(card.get_by_role("button", name="Decline")).to_be_focused()
    keyboard.press("Enter")
    assert error_of(declined).code == ASK_DECLINED


def test_the_title_counts_pending_questions(tab: Tab, agent: Agent) -> None:
    assert tab.page.title() == "user-interaction"
    first = agent.ask(package_question("first"))
    agent.ask(package_question("second"))
    expect(tab.page).to_have_title("(2) questions · user-interaction")
    tab.card_for("first").get_by_role("button", name="Cancel").click()
    assert error_of(first).code == ASK_CANCELLED
    expect(tab.page).to_have_title("(1) question · user-interaction")
    expect(tab.page.locator("#empty")).to_be_hidden()


def test_the_title_counts_questions_not_asks(tab: Tab, agent: Agent) -> None:
    agent.ask(package_question("a"), package_question("b"), package_question("c"))
    expect(tab.page).to_have_title("(3) questions · user-interaction")
    agent.ask(package_question("d"))
    expect(tab.page).to_have_title("(4) questions · user-interaction")


def test_several_pending_asks_are_counted_with_a_way_to_each(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    tab = Tab(browser, provider.start(), viewport={"width": 1280, "height": 700})
    try:
        jump = tab.page.get_by_role("navigation", name="Pending asks")
        first = agent.ask(previewed_question("first"), package_question("more"))
        expect(tab.cards()).to_have_count(1)
        expect(jump).to_be_hidden()  # one ask: nothing to jump between
        agent.ask(
            AskUserQuestionItem("checks", "Which checks should run?", options=["lint", "tests"])
        )
        expect(jump).to_be_visible()
        expect(jump).to_contain_text("2 asks waiting:")
        expect(jump.get_by_role("button")).to_have_text(
            [f"1. {QUESTION}", "2. Which checks should run?"]
        )
        second = tab.card_for("checks")
        expect(second).not_to_be_in_viewport()  # far below the first one
        jump.get_by_role("button", name="2. Which checks").click()
        expect(second).to_be_in_viewport()
        expect(second.get_by_role("radio", name="lint")).to_be_focused()
        expect(jump).to_be_in_viewport()  # it stays at the top while scrolling
        tab.card_for("first").get_by_role("button", name="Cancel").click()
        assert error_of(first).code == ASK_CANCELLED
        expect(jump).to_be_hidden()
        assert tab.errors == []
    finally:
        tab.close()


def test_cards_are_no_forms_and_submit_by_themselves(tab: Tab, agent: Agent) -> None:
    """Chromium's autofill reads every <form> of a page again after each change to them: a
    page of a thousand form cards spent a second on it per ask arriving or leaving, and
    the next ask waited behind it. A card is no form, and submits all the same."""
    agent.ask(package_question("first"))
    second = agent.ask(AskUserQuestionItem("checks", "Which checks?", options=["lint", "tests"]))
    expect(tab.cards()).to_have_count(2)
    assert tab.page.evaluate("() => document.forms.length") == 0
    card = tab.card_for("checks")
    card.get_by_role("radio", name="tests").check()
    tab.page.keyboard.press("Enter")  # on the checked choice
    assert second.result(PROMPTLY).get("checks").selected == ("tests",)  # type: ignore[union-attr]
    assert tab.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_approval_shows_allow_and_deny_as_what_they_are(
    browser: Browser, provider: WebProvider, agent: Agent, scheme: str
) -> None:
    """What ui.approve(..., remember=...) asks: allowing and denying in colours of their
    own (readable: axe-core finds no contrast problem), and nothing else changes."""
    labels = ("Allow", "Deny", "Always allow", "Always deny")
    approve = AskUserQuestionItem(
        "approve", "Deploy to production?", "Approve",
        [AskUserQuestionOption(label) for label in labels],
    )  # fmt: skip
    sent = agent.ask(approve)
    agent.ask(
        AskUserQuestionItem(
            "pkg", "Not an approval?", options=[AskUserQuestionOption(x) for x in ("Allow", "Deny")]
        )
    )
    tab = Tab(browser, provider.start(), color_scheme=scheme)
    try:
        card = tab.card_for("approve")
        decisions = card.locator(".option:not(.other)").evaluate_all(
            "rows => rows.map(row => [row.dataset.decision,"
            " getComputedStyle(row.querySelector('label')).color])"
        )
        assert [decision for decision, _ in decisions] == ["allow", "deny", "allow", "deny"]
        colours = [colour for _, colour in decisions]
        assert colours[0] != colours[1]  # allowing and denying look different
        assert colours[2:] == colours[:2]  # and "always" as its once
        plain = (
            tab.card_for("pkg")
            .locator(".option")
            .evaluate_all("rows => rows.map(row => row.dataset.decision || null)")
        )
        assert plain[:2] == [None, None]
        assert set(plain) == {None}
        results = axe().run(
            tab.page, options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}}
        )
        assert results.response["violations"] == []
        card.get_by_role("radio", name="Always allow").check()
        card.get_by_role("button", name="Submit").click()
        assert sent.result(PROMPTLY).get("approve").selected == ("Always allow",)  # type: ignore[union-attr]
        assert tab.errors == []
    finally:
        tab.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_passes_axe_wcag_a_and_aa(
    browser: Browser, provider: WebProvider, agent: Agent, scheme: str
) -> None:
    """axe-core finds no WCAG 2.1 A/AA violation: with cards, previews, the list of
    asks, the time left, the check before sending and a card the agent gave up on."""
    checker = axe()
    controller = AbortController()
    agent.ask(previewed_question("pkg"), package_question("many", multi=True), timeout=60)
    agent.ask(AskUserQuestionItem("name", "What name?"), signal=controller.signal)
    tab = Tab(
        browser, provider.start(), color_scheme=scheme, viewport={"width": 1280, "height": 900}
    )
    try:
        expect(tab.cards()).to_have_count(2)
        controller.abort()
        expect(tab.page.get_by_role("button", name="Dismiss")).to_be_visible()
        card = tab.card_for("pkg")
        card.get_by_role("radio", name="npm", exact=True).check()
        card.get_by_role("button", name="Submit").click()
        expect(card.get_by_role("dialog")).to_be_visible()
        options = {
            "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}
        }
        results = checker.run(tab.page, options=options)
        violations = results.response["violations"]
        assert violations == [], [
            (v["id"], [node["target"] for node in v["nodes"]]) for v in violations
        ]
        assert tab.errors == []
    finally:
        tab.close()


SCREENSHOT_PREVIEWS = {
    "pnpm": (
        "**pnpm** keeps one copy of each package and links it into `node_modules`.\n\n"
        "```sh\n# CI installs what the lockfile says\npnpm install --frozen-lockfile\n```\n\n"
        "- strict: no phantom dependencies\n- lockfile: `pnpm-lock.yaml`"
    ),
    "npm": "Ships with Node.\n\n```sh\nnpm ci\n```\n\n- lockfile: `package-lock.json`",
    "yarn": "```sh\ncorepack enable\nyarn install --immutable\n```",
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshot_of_two_pending_asks(
    browser: Browser, provider: WebProvider, agent: Agent, scheme: str, tmp_path: Path
) -> None:
    """Takes the README's screenshots; ``USER_INTERACTION_WEB_SCREENSHOTS=DIR`` keeps them."""
    client = Client(provider.start())
    plain = package_question()
    options = [
        AskUserQuestionOption(o.label, o.description, SCREENSHOT_PREVIEWS[o.label])
        for o in plain.options
    ]
    agent.ask(
        AskUserQuestionItem("pkg", plain.question, plain.header, options, detail=plain.detail)
    )
    wait_until(lambda: len(client.snapshot()) == 1)  # the cards in a known order
    agent.ask(
        AskUserQuestionItem(
            "checks",
            "Which checks should run before the release?",
            header="CI",
            options=[
                AskUserQuestionOption("lint"),
                AskUserQuestionOption("tests", "unit and integration"),
                AskUserQuestionOption("docs", "build the site strictly"),
            ],
            multi_select=True,
        )
    )
    tab = Tab(
        browser,
        provider.start(),
        color_scheme=scheme,
        viewport={"width": 1000, "height": 900},
        device_scale_factor=1,
    )
    try:
        expect(tab.cards()).to_have_count(2)
        pkg = tab.card_for("pkg")
        pkg.get_by_role("radio", name="pnpm", exact=True).check()
        pkg.get_by_role("textbox", name="Notes (optional)").fill("pin it to 9.x in CI")
        tab.card_for("checks").get_by_role("checkbox", name="tests", exact=True).check()
        tab.page.locator("body").click(position={"x": 5, "y": 5})  # no focus ring in the shot
        expect(pkg.get_by_role("region", name="Preview")).to_contain_text("frozen-lockfile")
        path = tmp_path / f"web-{scheme}.png"
        tab.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
        keep = os.environ.get("USER_INTERACTION_WEB_SCREENSHOTS")
        if keep:
            shutil.copy(path, Path(keep) / path.name)
        assert tab.errors == []
    finally:
        tab.close()
