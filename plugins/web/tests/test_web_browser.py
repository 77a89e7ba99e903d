"""The page in a real browser (Playwright driving Debian's chromium): the acceptance checks
of design/web.md, one test each (7, 8 and 11 also without a browser in test_web_http.py),
keyboard-only answering, and the README's screenshots."""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser_support import Tab
from web_support import Agent, Client, error_of, package_question, wait_until

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
    answer = future.result(1.0)
    assert time.perf_counter() - started < 1.0
    assert answer.get("pkg").selected == ("npm",)  # type: ignore[union-attr]
    expect(tab.cards()).to_have_count(0)


def test_check_1_checkboxes_keep_the_offered_order(tab: Tab, agent: Agent) -> None:
    future = agent.ask(package_question(multi=True))
    card = tab.card(QUESTION)
    card.get_by_role("checkbox", name="yarn", exact=True).check()
    card.get_by_role("checkbox", name="pnpm", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    assert future.result(2).get("pkg").selected == ("pnpm", "yarn")  # type: ignore[union-attr]


def test_check_1_other_text_replaces_the_choice(tab: Tab, agent: Agent) -> None:
    single = agent.ask(package_question("one"))
    multi = agent.ask(package_question("many", multi=True))
    expect(tab.cards()).to_have_count(2)
    first, second = tab.card_for("one"), tab.card_for("many")
    first.get_by_role("radio", name="npm", exact=True).check()
    first.get_by_role("textbox", name="Other answer").fill("bun, pinned")
    expect(first.get_by_role("radio", name="Other…")).to_be_checked()
    first.get_by_role("button", name="Submit").click()
    item = single.result(2).get("one")
    assert item is not None
    assert (item.selected, item.custom) == ((), "bun, pinned")

    second.get_by_role("checkbox", name="pnpm", exact=True).check()
    second.get_by_role("textbox", name="Other answer").fill("whatever CI has")
    second.get_by_role("button", name="Submit").click()
    item = multi.result(2).get("many")
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
    answer = future.result(2)
    assert answer.get("name").custom == "Bike Shed"  # type: ignore[union-attr]
    pkg = answer.get("pkg")
    assert pkg is not None
    assert (pkg.selected, pkg.custom) == ((), None)  # skipped


def test_the_question_detail_and_descriptions_are_shown(tab: Tab, agent: Agent) -> None:
    agent.ask(package_question(), timeout=10)
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
        expect(tab.cards()).to_have_count(0, timeout=1000)
        expect(other.cards()).to_have_count(0, timeout=1000)
        assert tab.post({"askId": ask_id, "action": "cancel"})["status"] == 409

        timed_out = agent.ask(package_question(), timeout=0.5)
        expect(other.cards()).to_have_count(1)
        ask_id = other.cards().first.get_attribute("data-ask-id")
        assert error_of(timed_out).code == ASK_TIMEOUT
        expect(tab.cards()).to_have_count(0, timeout=1000)
        expect(other.cards()).to_have_count(0, timeout=1000)
        late = {"askId": ask_id, "action": "accept", "answers": []}
        assert other.post(late)["status"] == 409
        assert other.errors == []
    finally:
        other.close()


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
    assert second.result(2).get("second").selected == ("npm",)  # type: ignore[union-attr]
    expect(tab.cards()).to_have_count(1)
    assert not first.done()
    tab.cards().first.get_by_role("radio", name="yarn", exact=True).check()
    tab.cards().first.get_by_role("button", name="Submit").click()
    assert first.result(2).get("first").selected == ("yarn",)  # type: ignore[union-attr]


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
        assert future.result(2).get("pkg").selected == ("pnpm",)  # type: ignore[union-attr]
        expect(other.cards()).to_have_count(0, timeout=1000)
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
        ([{"id": "pkg", "selected": ["bun"]}], "answers[0].selected[0]: 'bun' was not offered"),
        (
            [{"id": "pkg", "selected": ["pnpm", "npm"]}],
            "answers[0].selected: 'pkg' takes one option, got 2",
        ),
        ([{"id": "name", "selected": [], "custom": " "}], "answers[0].custom: blank"),
    ):
        reply = tab.post({"askId": ask_id, "action": "accept", "answers": answers})
        assert reply == {"status": 422, "body": {"error": message}}
    assert not future.done()
    expect(tab.cards()).to_have_count(1)

    # the page shows the server's refusal in the card, which stays usable
    card.get_by_role("radio", name="npm", exact=True).evaluate("input => { input.value = 'bun' }")
    card.get_by_role("radio", name="npm", exact=True).check()
    tab.expect_status(422)
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("alert")).to_have_text("answers[0].selected[0]: 'bun' was not offered")
    # "Other…" without text is caught on the page
    card.get_by_role("radio", name="Other…").check()
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("alert")).to_contain_text("Type your own answer")
    assert not future.done()
    card.get_by_role("radio", name="yarn", exact=True).check()
    card.get_by_role("button", name="Submit").click()
    assert future.result(2).get("pkg").selected == ("yarn",)  # type: ignore[union-attr]


# -- 7 and 8. the guards, as the browser meets them ------------------------------------------


def test_check_7_a_page_without_the_token_sees_nothing(
    browser: Browser, provider: WebProvider, agent: Agent
) -> None:
    agent.ask(package_question(), timeout=10)
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
    agent.ask(package_question(), timeout=10)
    context = browser.new_context()
    page = context.new_page()
    headers: dict[str, dict[str, str]] = {}
    page.on("response", lambda response: headers.update({response.url: response.all_headers()}))
    try:
        page.goto(provider.start())
        expect(page.locator("form.card")).to_have_count(1)
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
    assert tab.page.locator("img, b, form.card script").count() == 0
    assert card.get_by_role("button").count() == 3  # Cancel, Decline, Submit
    card.get_by_role("radio", name=label, exact=True).check()
    card.get_by_role("button", name="Submit").click()
    assert future.result(2).get("evil").selected == (label,)  # type: ignore[union-attr]
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
        assert time.perf_counter() - started < 1.0
        expect(tab.page.locator("#status")).to_have_text("Reconnecting…", timeout=1000)
    finally:
        agent.close()
    tab.forget_errors()  # the page's reconnection attempts fail, as they should


# -- the page as a whole ---------------------------------------------------------------------


def test_keyboard_only_answering(tab: Tab, agent: Agent) -> None:
    keyboard = tab.page.keyboard
    single = agent.ask(package_question("one"))
    expect(tab.cards()).to_have_count(1)
    expect(tab.cards().first.get_by_role("radio", name="pnpm", exact=True)).to_be_focused()
    keyboard.press("ArrowDown")  # arrows move the choice within the group
    keyboard.press("Enter")
    assert single.result(2).get("one").selected == ("npm",)  # type: ignore[union-attr]

    multi = agent.ask(package_question("many", multi=True))
    card = tab.cards().first
    expect(card).to_have_count(1)
    card.get_by_role("checkbox", name="pnpm", exact=True).focus()
    keyboard.press("Space")
    keyboard.press("Tab")
    keyboard.press("Tab")
    keyboard.press("Space")  # yarn
    keyboard.press("Enter")
    assert multi.result(2).get("many").selected == ("pnpm", "yarn")  # type: ignore[union-attr]

    other = agent.ask(package_question("typed"))
    card = tab.cards().first
    card.get_by_role("radio", name="pnpm", exact=True).focus()
    keyboard.press("Tab")  # from the radio group to the "Other" text box
    keyboard.type("deno")
    keyboard.press("Enter")
    item = other.result(2).get("typed")
    assert item is not None
    assert (item.selected, item.custom) == ((), "deno")

    declined = agent.ask(package_question("no"))
    tab.cards().first.get_by_role("radio", name="pnpm", exact=True).focus()
    for _ in range(3):  # Other text, Cancel, Decline
        keyboard.press("Tab")
    expect(tab.cards().first.get_by_role("button", name="Decline")).to_be_focused()
    keyboard.press("Enter")
    assert error_of(declined).code == ASK_DECLINED


def test_the_title_counts_pending_questions(tab: Tab, agent: Agent) -> None:
    assert tab.page.title() == "user-interaction"
    first = agent.ask(package_question("first"))
    agent.ask(package_question("second"), timeout=10)
    expect(tab.page).to_have_title("(2) questions · user-interaction")
    tab.card_for("first").get_by_role("button", name="Cancel").click()
    assert error_of(first).code == ASK_CANCELLED
    expect(tab.page).to_have_title("(1) question · user-interaction")
    expect(tab.page.locator("#empty")).to_be_hidden()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshot_of_two_pending_asks(
    browser: Browser, provider: WebProvider, agent: Agent, scheme: str, tmp_path: Path
) -> None:
    """Takes the README's screenshots; ``USER_INTERACTION_WEB_SCREENSHOTS=DIR`` keeps them."""
    client = Client(provider.start())
    agent.ask(package_question(), timeout=10)
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
        ),
        timeout=10,
    )
    tab = Tab(
        browser,
        provider.start(),
        color_scheme=scheme,
        viewport={"width": 760, "height": 900},
        device_scale_factor=1,
    )
    try:
        expect(tab.cards()).to_have_count(2)
        tab.card_for("pkg").get_by_role("radio", name="pnpm", exact=True).check()
        tab.card_for("checks").get_by_role("checkbox", name="tests", exact=True).check()
        tab.page.locator("body").click(position={"x": 5, "y": 5})  # no focus ring in the shot
        path = tmp_path / f"web-{scheme}.png"
        tab.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
        keep = os.environ.get("USER_INTERACTION_WEB_SCREENSHOTS")
        if keep:
            shutil.copy(path, Path(keep) / path.name)
        assert tab.errors == []
    finally:
        tab.close()
