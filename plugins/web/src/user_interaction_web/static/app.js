// The page of the user-interaction web provider: its transport. Every pending ask arrives
// over Server-Sent Events and becomes a card of the shared board (cards.js, which also
// holds the markup rules: model text only ever reaches the DOM as text).
"use strict";

(() => {
  const token = decodeURIComponent(location.hash.slice(1));
  const status = document.getElementById("status");
  const board = window.UserInteractionCards.createBoard({
    list: document.getElementById("asks"),
    empty: document.getElementById("empty"),
    post: (askId, action, answers) =>
      fetch("api/answer", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-UI-Token": token },
        body: JSON.stringify(answers ? { askId, action, answers } : { askId, action }),
        cache: "no-store",
      }),
  });

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  // -- the event stream ---------------------------------------------------------------

  function connect() {
    if (!token) {
      setStatus("failed", "Not connected: open the full address the agent printed (it ends with #…).");
      return;
    }
    const events = new EventSource(`api/events?token=${encodeURIComponent(token)}`);
    events.addEventListener("open", () => setStatus("connected", "Connected"));
    events.addEventListener("snapshot", (event) => board.snapshot(JSON.parse(event.data).asks));
    events.addEventListener("ask", (event) => board.add(JSON.parse(event.data)));
    events.addEventListener("closed", () => {
      // the agent let go of the page (it is shutting down): no reconnecting to nothing
      events.close();
      for (const askId of board.ids()) board.expire(askId, "PROVIDER_DISPOSED");
      setStatus("stopped", "The agent has stopped asking: this page can be closed.");
    });
    events.addEventListener("withdraw", (event) => {
      const { askId, code } = JSON.parse(event.data);
      // a card this page is sending goes as usual; one the agent gave up on stays, saying so
      if (code && board.has(askId) && !board.sending(askId)) board.expire(askId, code);
      else board.remove(askId);
    });
    events.addEventListener("error", () => {
      if (events.readyState === EventSource.CLOSED) {
        setStatus("failed", "Not connected: open the full address the agent printed (it ends with #…).");
      } else {
        setStatus("connecting", "Reconnecting…");
      }
    });
  }

  connect();
})();
