// The page of the user-interaction web provider. Every pending ask arrives over
// Server-Sent Events and becomes a card; model text only ever reaches the DOM through
// textContent, value and setAttribute, never as HTML.
"use strict";

(() => {
  const token = decodeURIComponent(location.hash.slice(1));
  const list = document.getElementById("asks");
  const empty = document.getElementById("empty");
  const status = document.getElementById("status");
  const cards = new Map(); // askId -> card element

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function updateCount() {
    const n = cards.size;
    empty.hidden = n > 0;
    document.title = n ? `(${n}) ${n === 1 ? "question" : "questions"} · user-interaction` : "user-interaction";
  }

  // -- rendering ----------------------------------------------------------------------

  function renderQuestion(askId, question, index) {
    const name = `${askId}-${index}`;
    const fieldset = el("fieldset", { className: "question", "data-id": question.id });
    const legend = el("legend");
    if (question.header) legend.append(el("span", { className: "chip", text: question.header }));
    legend.append(el("span", { className: "prompt", text: question.question }));
    fieldset.append(legend);
    if (question.detail) fieldset.append(el("p", { className: "detail", text: question.detail }));
    const options = question.options || [];
    if (!options.length) {
      const id = `${name}-text`;
      fieldset.append(
        el("label", { for: id, className: "visually-hidden", text: "Your answer" }),
        el("textarea", { id, className: "free-text", rows: 3, placeholder: "Type your answer" }),
        el("p", { className: "hint", text: "Enter sends the answer, Shift+Enter starts a new line." }),
      );
      return fieldset;
    }
    const type = question.multiSelect ? "checkbox" : "radio";
    options.forEach((option, i) => {
      const id = `${name}-${i}`;
      const input = el("input", { type, id, name, className: "choice" });
      input.value = option.label;
      const row = el("div", { className: "option" }, input, el("label", { for: id, text: option.label }));
      if (option.description) {
        input.setAttribute("aria-describedby", `${id}-d`);
        row.append(el("div", { id: `${id}-d`, className: "description", text: option.description }));
      }
      fieldset.append(row);
    });
    const otherId = `${name}-other`;
    const other = el("input", { type, id: otherId, name, className: "other-choice" });
    const text = el("input", {
      type: "text",
      id: `${otherId}-text`,
      className: "other-text",
      placeholder: question.multiSelect ? "Your own answer (replaces the choices)" : "Your own answer",
      autocomplete: "off",
    });
    const sync = () => {
      if (other.checked) fieldset.dataset.other = "";
      else delete fieldset.dataset.other;
    };
    text.addEventListener("input", () => {
      if (text.value.trim() && !other.checked) {
        other.checked = true;
        sync();
      }
    });
    fieldset.addEventListener("change", sync);
    fieldset.append(
      el(
        "div",
        { className: "option other" },
        other,
        el("label", { for: otherId, text: "Other…" }),
        el("label", { for: text.id, className: "visually-hidden", text: "Other answer" }),
        text,
      ),
    );
    return fieldset;
  }

  function renderAsk(ask) {
    const form = el("form", { className: "card", "data-ask-id": ask.askId, novalidate: true });
    ask.questions.forEach((question, i) => form.append(renderQuestion(ask.askId, question, i)));
    const error = el("p", { className: "error", role: "alert", hidden: true });
    const submit = el("button", { type: "submit", className: "primary", text: "Submit" });
    const cancel = el("button", { type: "button", "data-action": "cancel", text: "Cancel" });
    const decline = el("button", { type: "button", "data-action": "decline", text: "Decline" });
    form.append(error, el("div", { className: "actions" }, cancel, decline, submit));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const answers = collect(form, ask);
      if (answers) send(form, ask.askId, "accept", answers);
    });
    cancel.addEventListener("click", () => send(form, ask.askId, "cancel"));
    decline.addEventListener("click", () => send(form, ask.askId, "decline"));
    form.addEventListener("keydown", (event) => {
      const target = event.target;
      if (event.key !== "Enter" || event.isComposing || target.tagName === "BUTTON") return;
      if (target.tagName === "TEXTAREA" && event.shiftKey) return;
      event.preventDefault();
      form.requestSubmit();
    });
    return form;
  }

  // The answers as the server wants them; null (with the reason shown) when incomplete.
  function collect(form, ask) {
    const answers = [];
    for (const [index, question] of ask.questions.entries()) {
      const fieldset = form.querySelectorAll("fieldset.question")[index];
      const free = fieldset.querySelector("textarea.free-text");
      if (free) {
        const text = free.value.trim();
        answers.push(text ? { id: question.id, selected: [], custom: text } : { id: question.id, selected: [] });
        continue;
      }
      const other = fieldset.querySelector("input.other-choice");
      if (other.checked) {
        const input = fieldset.querySelector("input.other-text");
        const text = input.value.trim();
        if (!text) {
          showError(form, "Type your own answer next to “Other…”, or pick an option.");
          input.focus();
          return null;
        }
        answers.push({ id: question.id, selected: [], custom: text });
        continue;
      }
      const selected = [...fieldset.querySelectorAll("input.choice:checked")].map((input) => input.value);
      answers.push({ id: question.id, selected }); // DOM order is the offered order
    }
    return answers;
  }

  function showError(form, message) {
    const error = form.querySelector(".error");
    error.textContent = message;
    error.hidden = !message;
  }

  function setBusy(form, busy) {
    for (const button of form.querySelectorAll("button")) button.disabled = busy;
  }

  async function send(form, askId, action, answers) {
    showError(form, "");
    setBusy(form, true);
    let response;
    try {
      response = await fetch("api/answer", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-UI-Token": token },
        body: JSON.stringify(answers ? { askId, action, answers } : { askId, action }),
        cache: "no-store",
      });
    } catch {
      showError(form, "The agent could not be reached. Try again.");
      setBusy(form, false);
      return;
    }
    if (response.ok || response.status === 409) {
      removeAsk(askId); // 409: answered in another tab, or withdrawn by the agent
      return;
    }
    let message = `The agent refused the answer (${response.status}).`;
    try {
      const body = await response.json();
      if (body && typeof body.error === "string") message = body.error;
    } catch {
      // keep the generic message
    }
    showError(form, message);
    setBusy(form, false);
  }

  // -- the pending asks ---------------------------------------------------------------

  function addAsk(ask) {
    if (cards.has(ask.askId)) return;
    const card = renderAsk(ask);
    cards.set(ask.askId, card);
    list.append(card);
    updateCount();
    if (document.activeElement === document.body || document.activeElement === null) {
      const first = card.querySelector("input, textarea");
      if (first) first.focus();
    }
  }

  function removeAsk(askId) {
    const card = cards.get(askId);
    if (!card) return;
    const hadFocus = card.contains(document.activeElement);
    const next = card.nextElementSibling || card.previousElementSibling;
    cards.delete(askId);
    card.remove();
    updateCount();
    if (hadFocus && next) {
      const first = next.querySelector("input, textarea");
      if (first) first.focus();
    }
  }

  function applySnapshot(asks) {
    const open = new Set(asks.map((ask) => ask.askId));
    for (const askId of [...cards.keys()]) if (!open.has(askId)) removeAsk(askId);
    for (const ask of asks) addAsk(ask); // cards already shown keep what was typed
  }

  // -- the event stream ---------------------------------------------------------------

  function connect() {
    if (!token) {
      setStatus("failed", "Not connected: open the full address the agent printed (it ends with #…).");
      updateCount();
      return;
    }
    const events = new EventSource(`api/events?token=${encodeURIComponent(token)}`);
    events.addEventListener("open", () => setStatus("connected", "Connected"));
    events.addEventListener("snapshot", (event) => applySnapshot(JSON.parse(event.data).asks));
    events.addEventListener("ask", (event) => addAsk(JSON.parse(event.data)));
    events.addEventListener("withdraw", (event) => removeAsk(JSON.parse(event.data).askId));
    events.addEventListener("error", () => {
      if (events.readyState === EventSource.CLOSED) {
        setStatus("failed", "Not connected: open the full address the agent printed (it ends with #…).");
      } else {
        setStatus("connecting", "Reconnecting…");
      }
    });
  }

  updateCount();
  connect();
})();
