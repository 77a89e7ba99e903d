// The cards of a page showing pending asks, shared by the web provider's page and the
// inbox's page: the markup rules (model text only ever reaches the DOM through
// textContent, text nodes, value and setAttribute, never as HTML; previews come as trees
// the server parsed), the answers built from a card, and
// the board of cards (count, jump list, countdown, receipts, notices). The page's own
// script brings the transport: where asks come from and where answers go.
"use strict";

window.UserInteractionCards = (() => {
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

  // -- previews ---------------------------------------------------------------------------
  // An option's preview arrives as a tree the server made of its Markdown (markdown-it-py
  // with raw HTML off, code highlighted by Pygments: user_interaction_web.previews). Here
  // it becomes elements, built with createElement and text nodes only: links show their
  // text and address and are never followed (no <a>), images show as text (no <img>).

  const BLOCKS = { paragraph: "p", quote: "blockquote", item: "li", em: "em", strong: "strong", del: "del" };
  const TOKEN_CLASS = /^[a-z]{1,3}$/;

  function renderPreview(tree) {
    const root = el("div", { className: "markdown" });
    appendNodes(root, tree);
    return root;
  }

  function appendNodes(parent, nodes) {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes) {
      if (typeof node === "string") parent.append(node); // a text node, never markup
      else if (node && typeof node === "object") {
        const made = renderNode(node);
        if (made) parent.append(made);
      }
    }
  }

  function renderNode(node) {
    const tag = BLOCKS[node.type];
    if (tag) {
      const made = el(tag);
      appendNodes(made, node.children);
      return made;
    }
    switch (node.type) {
      case "heading": {
        // under the page's h1 and the card's questions
        const level = Math.min(6, Math.max(1, Number(node.level) || 1) + 2);
        const heading = el(`h${level}`, { className: "md-heading" });
        appendNodes(heading, node.children);
        return heading;
      }
      case "list": {
        const list = el(node.ordered ? "ol" : "ul");
        if (node.ordered && Number.isInteger(node.start) && node.start !== 1) list.setAttribute("start", String(node.start));
        appendNodes(list, node.children);
        return list;
      }
      case "codeblock": {
        const code = el("code");
        for (const run of Array.isArray(node.runs) ? node.runs : []) {
          const [name, text] = run;
          const value = String(text ?? "");
          if (name && TOKEN_CLASS.test(name)) code.append(el("span", { className: `tok tok-${name}`, text: value }));
          else code.append(value);
        }
        return el("pre", { "data-language": typeof node.language === "string" ? node.language : undefined }, code);
      }
      case "rule":
        return el("hr");
      case "table": {
        const head = el("thead");
        const body = el("tbody");
        for (const row of Array.isArray(node.children) ? node.children : []) {
          const tr = el("tr");
          for (const cell of Array.isArray(row.children) ? row.children : []) {
            const align = ["left", "center", "right"].includes(cell.align) ? `align-${cell.align}` : undefined;
            const made = el(row.head ? "th" : "td", { className: align });
            appendNodes(made, cell.children);
            tr.append(made);
          }
          (row.head ? head : body).append(tr);
        }
        return el("div", { className: "table" }, el("table", {}, head.firstChild ? head : null, body));
      }
      case "code":
        return el("code", { text: String(node.text ?? "") });
      case "break":
        return el("br");
      case "link": {
        const link = el("span", { className: "md-link" });
        appendNodes(link, node.children);
        const href = typeof node.href === "string" ? node.href : "";
        const shown = link.textContent;
        if (href && href !== shown && href !== `mailto:${shown}`) link.append(el("span", { className: "md-url", text: href }));
        return link;
      }
      case "image": {
        const image = el("span", { className: "md-link md-image" });
        image.append(el("span", { text: `image: ${node.alt || "(no description)"}` }));
        if (typeof node.src === "string") image.append(el("span", { className: "md-url", text: node.src }));
        return image;
      }
      case "omitted":
        return el("p", { className: "md-omitted", text: `… ${Number(node.characters) || 0} more characters not shown` });
      default: {
        // a node this page does not know: its text, if any
        const span = el("span");
        appendNodes(span, node.children);
        return span.firstChild ? span : null;
      }
    }
  }

  // A preview without its tree (not made by this page's server): its Markdown as text.
  function previewOf(option) {
    if (Array.isArray(option.previewTree)) return renderPreview(option.previewTree);
    return el("div", { className: "markdown" }, el("p", { text: option.preview }));
  }

  // -- rendering ----------------------------------------------------------------------

  // An approval (one question "approve" offering Allow, Deny and their "Always" forms):
  // each label's decision, so that allowing and denying look like what they are.
  const DECISIONS = { "Allow": "allow", "Always allow": "allow", "Deny": "deny", "Always deny": "deny" };

  function approvalDecisions(question) {
    const options = question.options || [];
    if (question.id !== "approve" || question.multiSelect || !options.length) return null;
    if (!options.every((option) => Object.hasOwn(DECISIONS, option.label))) return null;
    return Object.fromEntries(options.map((option) => [option.label, DECISIONS[option.label]]));
  }

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
      );
      return fieldset;
    }
    const type = question.multiSelect ? "checkbox" : "radio";
    const choices = el("div", { className: "choices" });
    const decisions = approvalDecisions(question);
    const inputs = options.map((option, i) => {
      const id = `${name}-${i}`;
      const input = el("input", { type, id, name, className: "choice" });
      input.value = option.label;
      const row = el("div", { className: "option" }, input, el("label", { for: id, text: option.label }));
      if (decisions) row.dataset.decision = decisions[option.label];
      if (option.description) {
        input.setAttribute("aria-describedby", `${id}-d`);
        row.append(el("div", { id: `${id}-d`, className: "description", text: option.description }));
      }
      choices.append(row);
      return input;
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
    const notesId = `${name}-notes`;
    const notes = el("textarea", {
      id: notesId,
      className: "notes",
      rows: 2,
      placeholder: "Sent with the option you pick, e.g. “but pin the version”",
      "aria-describedby": `${notesId}-hint`,
    });
    const notesHint = el("p", { id: `${notesId}-hint`, className: "hint warning" });
    const sync = () => {
      if (other.checked) fieldset.dataset.other = "";
      else delete fieldset.dataset.other;
      // notes go beside a chosen option: say so as soon as they have nothing to go with
      const orphan = Boolean(notes.value.trim()) && (other.checked || !inputs.some((input) => input.checked));
      if (orphan) notes.setAttribute("aria-invalid", "true");
      else notes.removeAttribute("aria-invalid");
      notesHint.hidden = !orphan;
      notesHint.textContent = !orphan
        ? ""
        : other.checked
          ? "Your own answer replaces the choice, so notes cannot go with it: write everything there."
          : "Pick an option for these notes to go with.";
    };
    text.addEventListener("input", () => {
      if (text.value.trim() && !other.checked) other.checked = true;
    });
    fieldset.addEventListener("change", sync);
    fieldset.addEventListener("input", sync);
    choices.append(
      el(
        "div",
        { className: "option other" },
        other,
        el("label", { for: otherId, text: "Other…" }),
        el("label", { for: text.id, className: "visually-hidden", text: "Other answer" }),
        text,
      ),
    );
    if (options.some((option) => option.preview)) {
      fieldset.classList.add("has-preview");
      fieldset.append(el("div", { className: "choice-area" }, choices, renderPreviews(name, options, inputs)));
    } else {
      fieldset.append(choices);
    }
    fieldset.append(
      el("div", { className: "notes-box" }, el("label", { for: notesId, text: "Notes (optional)" }), notes, notesHint),
    );
    sync();
    return fieldset;
  }

  // The preview panel of a question: the Markdown of the option the pointer is over, else
  // of the focused one, else of the last one checked, else of the first.
  function renderPreviews(name, options, inputs) {
    // the panel is the one scroller of a preview (code and tables inside do not scroll on
    // their own), and always a Tab stop: arrow keys scroll it, and the Tab order does not
    // change with the option whose preview is shown
    const panel = el("div", {
      className: "preview",
      id: `${name}-preview`,
      role: "region",
      "aria-label": "Preview",
      tabindex: 0,
    });
    const title = el("p", { className: "preview-title" });
    const body = el("div", { className: "preview-body" });
    panel.append(title, body);
    const rendered = new Map(); // option index -> its preview, rendered once when first shown
    let hovered = null;
    let focused = null;
    let checked = null;
    const show = () => {
      let index = hovered ?? focused;
      if (index === null) {
        if (checked === null || !inputs[checked].checked) {
          const first = inputs.findIndex((input) => input.checked);
          checked = first >= 0 ? first : null;
        }
        index = checked ?? 0;
      }
      if (panel.dataset.option === String(index)) return;
      panel.dataset.option = String(index);
      const option = options[index];
      title.replaceChildren("Preview of ", el("strong", { text: option.label }));
      if (!option.preview) {
        body.replaceChildren(el("p", { className: "preview-none", text: "This option has no preview." }));
        return;
      }
      if (!rendered.has(index)) rendered.set(index, previewOf(option));
      body.replaceChildren(rendered.get(index));
    };
    inputs.forEach((input, i) => {
      if (options[i].preview) input.setAttribute("aria-details", panel.id);
      const row = input.parentElement;
      row.addEventListener("mouseenter", () => {
        hovered = i;
        show();
      });
      row.addEventListener("mouseleave", () => {
        hovered = null;
        show();
      });
      input.addEventListener("focus", () => {
        focused = i;
        show();
      });
      input.addEventListener("blur", () => {
        focused = null;
        show();
      });
      input.addEventListener("change", () => {
        if (input.checked) checked = i;
        show();
      });
    });
    show();
    return panel;
  }

  const MAC = /Mac|iPhone|iPad/.test(navigator.platform);
  const SEND_KEYS = MAC ? "⌘+Enter" : "Ctrl+Enter";

  // -- the board: every pending ask of a page as a card ----------------------------------

  function createBoard(options) {
    // list: where cards go; empty: shown when none waits; post(askId, action, answers): a
    // fetch sending the human's reply; onConflict(askId, body): the reply came too late
    // (409), default: the card goes; countAlways: say how many wait even for one.
    const { list, empty, post } = options;
    const cards = new Map(); // askId -> card element
    // Asks of a snapshot not built yet, oldest first: a page opened on a thousand asks
    // shows the first screenful at once and builds the rest once that screen is painted,
    // in one go (batch by batch, every batch would lay the whole list out again).
    const queued = new Map(); // askId -> ask
    const FIRST_BATCH = 20;
    let draining = null;

    // With several asks pending: how many, and a way to jump to each (they can be far apart).
    const jump = el("nav", { className: "jump", "aria-label": "Pending asks", hidden: true });
    list.before(jump);

    // Kept up to date card by card (not rebuilt): a page may hold a thousand asks.
    const count = el("span", { className: "jump-count" });
    const jumps = new Map(); // askId -> its button in the jump list
    let questions = 0;

    function jumpTo(card) {
      const prompt = card.querySelector("fieldset.question .prompt");
      const agent = card.dataset.agent ? `${card.dataset.agent}: ` : "";
      const button = el("button", { type: "button" });
      button.dataset.label = `${agent}${prompt ? prompt.textContent : ""}`;
      button.addEventListener("click", () => {
        card.scrollIntoView({ block: "start" });
        const first = card.querySelector("input, textarea");
        if (first) first.focus({ preventScroll: true });
      });
      return button;
    }

    // The tab's title counts the questions waiting. It is written in a task of its own,
    // once for a burst of changes: writing it takes Chromium about a millisecond, which
    // a new card would otherwise wait for. A timer, not an animation frame: the title
    // matters most in a tab in the background, where frames stop.
    let titling = null;
    function updateTitle() {
      titling = null;
      let waiting = questions;
      for (const ask of queued.values()) waiting += Array.isArray(ask.questions) ? ask.questions.length : 0;
      const title = waiting
        ? `(${waiting}) ${waiting === 1 ? "question" : "questions"} · user-interaction`
        : "user-interaction";
      if (document.title !== title) document.title = title;
    }

    // from: the first button whose number may have changed
    function updateCount(from = 0) {
      const n = cards.size + queued.size;
      empty.hidden = n > 0;
      if (titling === null) titling = setTimeout(updateTitle, 0);
      const shown = options.countAlways ? 1 : 2;
      jump.hidden = n < shown;
      count.textContent = `${n} ${n === 1 ? "ask" : "asks"} waiting:`;
      if (!jump.firstChild) jump.append(count);
      const buttons = [...jumps.values()];
      for (let i = from; i < buttons.length; i += 1) {
        const text = `${i + 1}. ${buttons[i].dataset.label}`;
        if (buttons[i].textContent !== text) buttons[i].textContent = text;
      }
    }

    function track(askId, card) {
      cards.set(askId, card);
      if (card.querySelector(".age, .time-left")) clocked.add(card);
      if (sight) sight.observe(card);
      questions += card.querySelectorAll("fieldset.question").length;
      const button = jumpTo(card);
      jumps.set(askId, button);
      jump.append(button);
      return jumps.size - 1;
    }

    function untrack(askId) {
      const card = cards.get(askId);
      const at = [...jumps.keys()].indexOf(askId);
      questions -= card.querySelectorAll("fieldset.question").length;
      cards.delete(askId);
      clocked.delete(card);
      inView.delete(card);
      if (sight) sight.unobserve(card);
      jumps.get(askId).remove();
      jumps.delete(askId);
      updateCount(Math.max(0, at));
    }

    // A card is a <div>, not a <form>: Chromium's autofill reads every form of a page again
    // after each change to the page's forms, and with a thousand cards that took a second
    // of the page's time per ask arriving or leaving (seen in a trace: autofill_agent's
    // ExtractForms); nothing on a card is autofill's business. Submitting is the card's own.
    function renderAsk(ask) {
      const card = el("div", { className: "card", id: `ask-${ask.askId}`, "data-ask-id": ask.askId });
      const meta = el("div", { className: "meta" });
      if (typeof ask.agent === "string") {
        // who asks, and since when (an inbox shows every agent's asks)
        card.dataset.agent = ask.agent;
        card.dataset.asked = String(performance.now() - (ask.age || 0) * 1000);
        meta.append(el("p", { className: "agent", text: ask.agent }), el("p", { className: "age" }));
      }
      if (typeof ask.timeLeft === "number") {
        // counted down on this page's own clock from what the agent had left when it sent
        card.dataset.deadline = String(performance.now() + ask.timeLeft * 1000);
        meta.append(el("p", { className: "time-left", role: "timer" }));
      }
      if (meta.firstChild) card.append(meta);
      ask.questions.forEach((question, i) => card.append(renderQuestion(ask.askId, question, i)));
      const error = el("p", { className: "error", role: "alert", hidden: true });
      const keys = el("p", {
        id: `${ask.askId}-keys`,
        className: "hint keys",
        text: `Enter on a choice or in a one-line box submits; in a multi-line box it starts a new line. ${SEND_KEYS} submits from anywhere.`,
      });
      const submit = el("button", { type: "button", className: "primary", text: "Submit", "aria-describedby": keys.id });
      const cancel = el("button", { type: "button", "data-action": "cancel", text: "Cancel" });
      const decline = el("button", { type: "button", "data-action": "decline", text: "Decline" });
      card.append(error, el("div", { className: "actions" }, keys, cancel, decline, submit));
      // built when first needed: most answers never need it, and a page may hold a
      // thousand cards
      let confirm = null;
      const submitAnswers = () => {
        if (card.dataset.state === "withdrawn") return;
        const answers = collect(card, ask);
        if (!answers) return;
        const skipped = ask.questions.filter((_, i) => !answers[i].selected.length && !answers[i].custom);
        if (skipped.length) {
          if (!confirm) {
            confirm = renderConfirm(card, ask);
            card.append(confirm.dialog);
          }
          confirm.open(skipped, answers);
        } else send(card, ask.askId, "accept", answers);
      };
      submit.addEventListener("click", submitAnswers);
      cancel.addEventListener("click", () => send(card, ask.askId, "cancel"));
      decline.addEventListener("click", () => send(card, ask.askId, "decline"));
      card.addEventListener("keydown", (event) => {
        if (event.key !== "Enter" || event.isComposing || (confirm && confirm.dialog.open)) return;
        const tag = event.target.tagName;
        // Enter makes a new line in a multi-line box and presses a button; Ctrl/Cmd+Enter
        // submits from anywhere
        if (!(event.ctrlKey || event.metaKey) && (tag === "TEXTAREA" || tag === "BUTTON")) return;
        event.preventDefault();
        submitAnswers();
      });
      return card;
    }

    // The in-page check before sending with questions unanswered: they would reach the
    // agent as skipped. A modal <dialog>: focus stays in it, Esc or "Keep answering" closes
    // it and moves to the first unanswered question.
    function renderConfirm(card, ask) {
      const id = `${ask.askId}-confirm`;
      const title = el("h2", { id: `${id}-title`, text: "Send with questions unanswered?" });
      const text = el("p", { id: `${id}-text` });
      const list = el("ul", { className: "skipped" });
      const keep = el("button", { type: "button", text: "Keep answering" });
      const sendAnyway = el("button", { type: "button", className: "primary", text: "Send anyway" });
      const dialog = el(
        "dialog",
        { className: "confirm", "aria-labelledby": title.id, "aria-describedby": text.id },
        title,
        text,
        list,
        el("div", { className: "actions" }, keep, sendAnyway),
      );
      let answers = null;
      let first = null; // the first unanswered question's fieldset
      keep.addEventListener("click", () => dialog.close("keep"));
      sendAnyway.addEventListener("click", () => dialog.close("send"));
      dialog.addEventListener("close", () => {
        if (card.dataset.state === "withdrawn") {
          // the agent gave up meanwhile: the notice has the focus
        } else if (dialog.returnValue === "send") {
          send(card, ask.askId, "accept", answers);
        } else if (first) {
          const control = first.querySelector("input, textarea");
          if (control) control.focus();
        }
      });
      return {
        dialog,
        open(skipped, collected) {
          answers = collected;
          const n = skipped.length;
          const total = ask.questions.length;
          text.textContent =
            total === 1
              ? "The question has no answer: the agent will see it as skipped."
              : `${n} of ${total} questions ${n === 1 ? "has" : "have"} no answer: the agent will see ${n === 1 ? "it" : "them"} as skipped.`;
          list.replaceChildren(
            ...skipped.map((question) =>
              el("li", { text: question.header ? `${question.header}: ${question.question}` : question.question }),
            ),
          );
          first = card.querySelector(`fieldset.question[data-id="${CSS.escape(skipped[0].id)}"]`);
          dialog.returnValue = "";
          dialog.showModal();
          keep.focus();
        },
      };
    }

    // The answers as the server wants them; null (with the reason shown) when incomplete.
    function collect(card, ask) {
      const answers = [];
      for (const [index, question] of ask.questions.entries()) {
        const fieldset = card.querySelectorAll("fieldset.question")[index];
        const free = fieldset.querySelector("textarea.free-text");
        if (free) {
          const text = free.value.trim();
          answers.push(text ? { id: question.id, selected: [], custom: text } : { id: question.id, selected: [] });
          continue;
        }
        const other = fieldset.querySelector("input.other-choice");
        const notesBox = fieldset.querySelector("textarea.notes");
        const notes = notesBox.value.trim();
        if (other.checked) {
          const input = fieldset.querySelector("input.other-text");
          const text = input.value.trim();
          if (!text) {
            showError(card, "Type your own answer next to “Other…”, or pick an option.");
            input.focus();
            return null;
          }
          if (notes) {
            showError(card, "Notes go beside a chosen option, and your own answer replaces the choice: write everything in your answer, or clear the notes.");
            notesBox.focus();
            return null;
          }
          answers.push({ id: question.id, selected: [], custom: text });
          continue;
        }
        const selected = [...fieldset.querySelectorAll("input.choice:checked")].map((input) => input.value);
        if (notes && !selected.length) {
          showError(card, "Notes go beside a chosen option: pick one for them, or clear the notes.");
          notesBox.focus();
          return null;
        }
        // DOM order is the offered order; notes travel only beside a selection
        answers.push(notes ? { id: question.id, selected, notes } : { id: question.id, selected });
      }
      return answers;
    }

    function showError(card, message) {
      const error = card.querySelector(".error");
      error.textContent = message;
      error.hidden = !message;
    }

    function setBusy(card, busy) {
      for (const button of card.querySelectorAll("button")) button.disabled = busy;
    }

    // A card being sent stays until the reply says what happened to it, even when the
    // stream says meanwhile that it is settled (by this very answer, most likely).
    async function send(card, askId, action, answers) {
      showError(card, "");
      setBusy(card, true);
      card.dataset.sending = "";
      let response;
      try {
        response = await post(askId, action, answers);
      } catch {
        response = null;
      }
      delete card.dataset.sending;
      if (response && response.ok) {
        settleAsk(askId, action, answers);
        return;
      }
      let body = null;
      try {
        body = response && (await response.json());
      } catch {
        // no JSON: the generic message below
      }
      if (response && response.status === 409) {
        // answered in another tab or elsewhere, or withdrawn by the agent
        if (options.onConflict) options.onConflict(askId, body || {});
        else removeAsk(askId);
        return;
      }
      if ("gone" in card.dataset) {
        removeAsk(askId);
        return;
      }
      let message = response
        ? `The answer was refused (${response.status}).`
        : "The server could not be reached. Try again.";
      if (body && typeof body.error === "string") message = body.error;
      showError(card, message);
      setBusy(card, false);
    }

    // -- the pending asks ---------------------------------------------------------------

    function addAsk(ask, into) {
      if (cards.has(ask.askId) || queued.has(ask.askId)) return;
      if (!into && queued.size) {
        queued.set(ask.askId, ask); // after the older ones still to build
        updateCount(cards.size);
        return;
      }
      const card = renderAsk(ask);
      (into || list).append(card);
      const at = track(ask.askId, card);
      if (into) return; // a batch: the caller counts and ticks once
      updateCount(at);
      tick(card);
      if (document.activeElement === document.body || document.activeElement === null) {
        const first = card.querySelector("input, textarea");
        if (first) first.focus();
      }
    }

    // -- time left, and asks the agent gave up on -----------------------------------------

    function clock(seconds) {
      const whole = Math.max(0, Math.ceil(seconds));
      const h = Math.floor(whole / 3600);
      const m = Math.floor((whole % 3600) / 60);
      const s = String(whole % 60).padStart(2, "0");
      return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
    }

    function ago(seconds) {
      if (seconds < 60) return "just now";
      const minutes = Math.floor(seconds / 60);
      if (minutes < 60) return `${minutes} min ago`;
      const hours = Math.floor(minutes / 60);
      if (hours < 48) return `${hours} h ${minutes % 60} min ago`;
      return `${Math.floor(hours / 24)} days ago`;
    }

    let ticker = null;
    // The cards with an age or a time left to count, and those of them in or near the
    // viewport: only these are redrawn each second (a page may hold a thousand asks, and
    // a thousand text changes a second kept it busy); one that comes into view is
    // brought up to date at once.
    const clocked = new Set();
    const inView = new Set();
    const sight =
      typeof IntersectionObserver === "function"
        ? new IntersectionObserver(
            (entries) => {
              for (const entry of entries) {
                if (!cards.has(entry.target.dataset.askId)) continue;
                if (entry.isIntersecting) {
                  inView.add(entry.target);
                  tickCard(entry.target);
                } else inView.delete(entry.target);
              }
            },
            { rootMargin: "400px 0px" },
          )
        : null;

    // One card's age and time left, now; whether it has any to count.
    function tickCard(card) {
      const age = card.querySelector(".age");
      if (age) {
        const text = `asked ${ago((performance.now() - Number(card.dataset.asked)) / 1000)}`;
        if (age.textContent !== text) age.textContent = text;
      }
      const timer = card.querySelector(".time-left");
      if (timer) {
        const left = (Number(card.dataset.deadline) - performance.now()) / 1000;
        const text = `⏱ ${clock(left)} left to answer`;
        if (timer.textContent !== text) timer.textContent = text;
        timer.classList.toggle("soon", left < 60);
      }
      return Boolean(age || timer);
    }

    // The cards in view, once a second while any card has something to count; ``only``:
    // just that one card now (a new ask), starting the clock if need be.
    function tick(only) {
      if (only) tickCard(only);
      else for (const card of sight ? inView : clocked) tickCard(card);
      const counting = clocked.size > 0;
      if (!counting && ticker !== null) {
        clearInterval(ticker);
        ticker = null;
      } else if (counting && ticker === null) {
        ticker = setInterval(tick, 1000);
      }
    }

    const WITHDRAWN = {
      ASK_TIMEOUT: "The time to answer ran out: nothing was sent.",
      ANSWERED_ELSEWHERE: "This question was settled elsewhere: nothing was sent from here.",
      ASK_ABORTED: "The agent withdrew this question: nothing was sent.",
      PROVIDER_DISPOSED: "The agent stopped asking: nothing was sent.",
    };

    // The agent gave up on an ask this page shows (or it was settled elsewhere): the card
    // stays, read-only, with what was typed still there to copy, and says why (``message``,
    // else what ``code`` means), until dismissed.
    function expireAsk(askId, code, message) {
      if (queued.delete(askId)) {
        updateCount(cards.size); // never shown: nothing to say about it
        return;
      }
      const card = cards.get(askId);
      if (!card) return;
      delete card.dataset.gone;
      const hadFocus = card.contains(document.activeElement);
      untrack(askId);
      card.dataset.state = "withdrawn";
      const dialog = card.querySelector("dialog");
      if (dialog && dialog.open) dialog.close("withdrawn");
      for (const control of card.querySelectorAll("input, textarea, button")) {
        if (control.type === "text" || control.tagName === "TEXTAREA") control.readOnly = true;
        else control.disabled = true;
      }
      const timer = card.querySelector(".time-left");
      if (timer) timer.remove();
      const typed = [...card.querySelectorAll("textarea, input[type=text]")].some((box) => box.value.trim());
      const dismiss = el("button", { type: "button", text: "Dismiss" });
      const notice = el(
        "div",
        { className: "notice" },
        el("p", { role: "alert", text: (message || WITHDRAWN[code] || WITHDRAWN.ASK_ABORTED) + (typed ? " What you typed is kept below to copy." : "") }),
        dismiss,
      );
      dismiss.addEventListener("click", () => {
        card.remove();
        const next = list.querySelector(".card:not([data-state=withdrawn])");
        const first = next && next.querySelector("input, textarea");
        if (first) first.focus();
      });
      card.prepend(notice);
      if (hadFocus) dismiss.focus();
    }

    function removeAsk(askId) {
      if (queued.delete(askId)) {
        updateCount(cards.size);
        return;
      }
      const card = cards.get(askId);
      if (!card) return;
      if ("sending" in card.dataset) {
        card.dataset.gone = ""; // its reply decides (a receipt, most likely)
        return;
      }
      const hadFocus = card.contains(document.activeElement);
      // the focus goes on to the next ask still waiting (else the one before)
      const waiting = [...cards.values()];
      const at = waiting.indexOf(card);
      const next = waiting[at + 1] || waiting[at - 1];
      untrack(askId);
      card.remove();
      if (hadFocus && next) {
        const first = next.querySelector("input, textarea");
        if (first) first.focus();
      }
    }

    const SETTLED = {
      accept: "✓ Sent to the agent:",
      cancel: "Cancelled:",
      decline: "Declined:",
    };

    // What the human sent for one question, in words.
    function described(answer) {
      if (answer.custom) return answer.custom;
      const text = answer.selected.length ? answer.selected.join(", ") : "no answer (skipped)";
      return answer.notes ? `${text} (notes: ${answer.notes})` : text;
    }

    // A card this page answered: a receipt saying what was sent takes its place, so the
    // person sees the answer went, instead of the card just disappearing.
    function settleAsk(askId, action, answers) {
      const card = cards.get(askId);
      if (!card) return;
      delete card.dataset.gone;
      const questions = [...card.querySelectorAll("fieldset.question .prompt")].map((p) => p.textContent);
      const receipt = el("div", { className: `receipt ${action}`, role: "status" });
      if (action === "accept" && answers) {
        receipt.append(
          el("p", { text: SETTLED.accept }),
          el("ul", {}, ...answers.map((answer, i) => el("li", { text: `${questions[i] || answer.id} → ${described(answer)}` }))),
        );
      } else {
        const more = questions.length > 1 ? ` (and ${questions.length - 1} more)` : "";
        receipt.append(el("p", { text: `${SETTLED[action]} ${questions[0] || ""}${more}` }));
      }
      const hadFocus = card.contains(document.activeElement);
      card.after(receipt);
      removeAsk(askId);
      if (hadFocus && document.activeElement === document.body) {
        receipt.setAttribute("tabindex", "-1"); // nothing else to go to: keep the place
        receipt.focus();
      }
    }

    // Build up to ``most`` queued asks (all when null), oldest first, in one append.
    function build(most) {
      const batch = document.createDocumentFragment();
      const before = cards.size;
      for (const [askId, ask] of queued) {
        if (most !== null && cards.size - before >= most) break;
        queued.delete(askId);
        addAsk(ask, batch);
        tickCard(cards.get(askId)); // its age and time left from the start, in view or not
      }
      list.append(batch);
      updateCount(before);
      tick();
    }

    function drain() {
      draining = null;
      build(null);
    }

    function applySnapshot(asks) {
      const open = new Set(asks.map((ask) => ask.askId));
      // a card marked stopped while the connection was down is still open after all
      for (const card of list.querySelectorAll(".card[data-state=withdrawn]")) {
        if (open.has(card.dataset.askId)) card.remove();
      }
      for (const askId of [...cards.keys()]) if (!open.has(askId)) removeAsk(askId);
      for (const askId of [...queued.keys()]) if (!open.has(askId)) queued.delete(askId);
      // cards already shown keep what was typed; the new ones are queued in order
      const before = cards.size;
      for (const ask of asks) if (!cards.has(ask.askId) && !queued.has(ask.askId)) queued.set(ask.askId, ask);
      build(FIRST_BATCH);
      // after the frame that shows the first ones is painted (a timer set in a frame's
      // callback runs once that frame is on screen)
      if (queued.size && draining === null) {
        draining = requestAnimationFrame(() => {
          draining = setTimeout(drain, 0);
        });
      }
      if (before === 0 && cards.size && (document.activeElement === document.body || document.activeElement === null)) {
        const first = list.querySelector(".card:not([data-state=withdrawn]) input, .card:not([data-state=withdrawn]) textarea");
        if (first) first.focus();
      }
    }

    // The card of ``askId``, built now if it was still queued (a link names it).
    function cardOf(askId) {
      if (queued.has(askId)) {
        const ahead = [...queued.keys()].indexOf(askId) + 1;
        build(ahead);
      }
      return cards.get(askId);
    }

    updateCount();
    return {
      add: addAsk,
      remove: removeAsk,
      expire: expireAsk,
      snapshot: applySnapshot,
      has: (askId) => cards.has(askId) || queued.has(askId),
      card: cardOf,
      ids: () => [...cards.keys(), ...queued.keys()],
      sending: (askId) => cards.has(askId) && "sending" in cards.get(askId).dataset,
      typed: (askId) =>
        cards.has(askId) &&
        [...cards.get(askId).querySelectorAll("textarea, input[type=text]")].some((box) => box.value.trim()),
    };
  }

  return { el, createBoard, renderPreview };
})();
