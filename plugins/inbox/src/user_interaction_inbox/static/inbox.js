// The inbox's page: its transport. Every agent's pending asks arrive over Server-Sent
// Events and become cards of the board shared with the web provider's page (cards.js,
// which also holds the markup rules: model text only ever reaches the DOM as text). The
// browser signs in once with the token from the address's fragment and keeps a session
// cookie, so links without the token (/asks/ID, as notifications send) work afterwards.
"use strict";

(() => {
  const { el, createBoard } = window.UserInteractionCards;
  const status = document.getElementById("status");
  const access = document.getElementById("access");
  const linked = document.getElementById("linked");
  const empty = document.getElementById("empty");
  const named = (/^\/asks\/([^/]+)$/.exec(location.pathname) || [])[1];
  const namedId = named ? decodeURIComponent(named) : null;
  let first = true; // the first snapshot opens the page on the ask the link names

  const ACTIONS = { accept: "answer", cancel: "cancel", decline: "decline" };
  const board = createBoard({
    list: document.getElementById("asks"),
    empty,
    countAlways: true,
    post: (askId, action, answers) =>
      fetch(`/api/asks/${encodeURIComponent(askId)}/settle`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(
          answers
            ? { action: ACTIONS[action], answer: { answers }, by: "the inbox page" }
            : { action: ACTIONS[action], by: "the inbox page" },
        ),
        cache: "no-store",
        credentials: "same-origin",
      }),
    onConflict: (askId, body) => gone(askId, body),
  });

  const LEFT = {
    answered: "answered",
    cancelled: "cancelled",
    declined: "declined",
    expired: "expired: its time to answer ran out",
    withdrawn: "withdrawn by its agent",
  };

  // An ask that left while shown here: a card with nothing typed goes; one expired,
  // withdrawn or settled elsewhere with text typed into it stays, saying so.
  function gone(askId, settled) {
    if (!board.has(askId)) return;
    if (board.sending(askId)) {
      board.remove(askId); // the reply to this page's own answer decides
      return;
    }
    const state = settled.state;
    if (state === "expired") board.expire(askId, "ASK_TIMEOUT");
    else if (state === "withdrawn") board.expire(askId, "ASK_ABORTED");
    else if (board.typed(askId) || !state) {
      const by = settled.settledBy ? ` by ${settled.settledBy}` : "";
      board.expire(askId, null, `This question was ${LEFT[state] || "settled"}${by}: nothing was sent from here.`);
    } else board.remove(askId);
  }

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function refused() {
    setStatus("failed", "Not signed in");
    access.hidden = false;
    empty.hidden = true;
  }

  // The ask a link named (/asks/ID): focused when pending, else what became of it.
  async function openNamed() {
    if (!namedId) return;
    const card = board.card(namedId);
    if (card) {
      card.classList.add("named");
      card.scrollIntoView({ block: "start" });
      const control = card.querySelector("input, textarea");
      if (control) control.focus({ preventScroll: true });
      return;
    }
    let text = `The ask ${namedId} is not in this inbox (it may have been forgotten).`;
    try {
      const response = await fetch(`/api/asks/${encodeURIComponent(namedId)}`, { cache: "no-store" });
      if (response.ok) {
        const ask = await response.json();
        const by = ask.settledBy ? ` by ${ask.settledBy}` : "";
        text = `The ask you followed, from ${ask.agent}, is no longer waiting: ${LEFT[ask.state] || ask.state}${by}.`;
      }
    } catch {
      // the generic text
    }
    linked.replaceChildren(el("span", { text }));
    linked.hidden = false;
  }

  function applySnapshot(asks) {
    const open = new Set(asks.map((ask) => ask.askId));
    // asks that left while the stream was down: as if the stream had said so
    for (const askId of board.ids()) if (!open.has(askId)) gone(askId, {});
    board.snapshot(asks);
    if (first) {
      first = false;
      openNamed();
    }
  }

  function connect() {
    const events = new EventSource("/api/events");
    events.addEventListener("open", () => setStatus("connected", "Connected"));
    events.addEventListener("snapshot", (event) => applySnapshot(JSON.parse(event.data).asks));
    events.addEventListener("ask", (event) => {
      const ask = JSON.parse(event.data);
      const card = board.card(ask.askId);
      if (card && typeof ask.timeLeft === "number") {
        // another caller joined the ask: its deadline moved
        card.dataset.deadline = String(performance.now() + ask.timeLeft * 1000);
      } else {
        board.add(ask);
      }
    });
    events.addEventListener("settled", (event) => {
      const settled = JSON.parse(event.data);
      gone(settled.askId, settled);
    });
    events.addEventListener("error", async () => {
      if (events.readyState !== EventSource.CLOSED) {
        setStatus("connecting", "Reconnecting…"); // the inbox restarts, or the network is down
        return;
      }
      // refused: say how to get in when that is why
      let answer = 0;
      try {
        answer = (await fetch("/api/inbox", { cache: "no-store" })).status;
      } catch {
        // unreachable
      }
      if (answer === 403) refused();
      else {
        setStatus("connecting", "Reconnecting…");
        setTimeout(connect, 2000);
      }
    });
  }

  async function start() {
    const token = decodeURIComponent(location.hash.slice(1));
    if (token) {
      let ok = false;
      try {
        const response = await fetch("/api/session", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-UI-Token": token },
          body: "{}",
          cache: "no-store",
          credentials: "same-origin",
        });
        ok = response.ok;
      } catch {
        // unreachable: the stream below says so
      }
      // the token leaves the address bar and the history: the cookie does its work now
      history.replaceState(null, "", location.pathname + location.search);
      if (!ok) {
        refused();
        return;
      }
    }
    connect();
  }

  start();
})();
