// The SlideSearch page: one search box, grouped cards, a batched "Why this?", and a deck tray.
// Plain browser JavaScript served as a static file; every value from the server is set with
// textContent, never parsed as HTML.
"use strict";

const state = {
  query: null,          // what the shown results were ranked for (string or list of angles)
  universes: null,      // the scope they were searched in (null: everything the server serves)
  cards: new Map(),     // slide id -> card element, in display order
  explained: false,     // explanations for the shown cards were fetched
  deck: [],             // slide ids in the order they were added
  session: sessionId(),
};

function sessionId() {
  let id = sessionStorage.getItem("seek-session");
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("seek-session", id);
  }
  return id;
}

const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key in node) node[key] = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

function setStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

function authHeaders() {
  const token = sessionStorage.getItem("seek-token");
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function api(path, body) {
  const headers = { "Content-Type": "application/json", "X-Seek-Channel": "page", ...authHeaders() };
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  if (response.status === 401) {
    $("token").hidden = false;
    $("token-label").hidden = false;
    throw new Error("This server needs an API token: enter it next to the Search button and try again.");
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).error || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

function readQuery() {
  const angles = $("query").value.split("\n").map((line) => line.trim()).filter(Boolean);
  return angles.length <= 1 ? (angles[0] || "") : angles;
}

function readUniverses() {
  return $("universes").value.split(",").map((u) => u.trim()).filter(Boolean);
}

// The address holds the search, as GET /search spells it: ?q=angle&q=angle&universes=A,B (universe= is
// accepted too), so a search can be linked, bookmarked and gone back to.
function searchAddress(query, universes) {
  const params = new URLSearchParams();
  for (const angle of Array.isArray(query) ? query : [query]) params.append("q", angle);
  if (universes.length) params.set("universes", universes.join(","));
  return `${location.pathname}?${params}`;
}

function searchFromAddress() {
  const params = new URLSearchParams(location.search);
  const angles = params.getAll("q").map((q) => q.trim()).filter(Boolean);
  const universes = [...params.getAll("universes"), ...params.getAll("universe")]
    .flatMap((u) => u.split(",")).map((u) => u.trim()).filter(Boolean);
  return { angles, universes };
}

function runSearchInAddress() {
  const { angles, universes } = searchFromAddress();
  if (!angles.length) return;
  $("query").value = angles.join("\n");
  $("universes").value = universes.join(", ");
  search(null, { fromAddress: true });
}

async function showUniverses() {
  // The placeholder names universes this server really has (within its scope), never made-up ones.
  try {
    const response = await fetch("/universes", { headers: authHeaders() });
    if (!response.ok) return;
    const names = (await response.json()).universes || [];
    if (names.length) $("universes").placeholder = `all, or e.g. ${names.slice(0, 3).join(", ")}`;
  } catch (_) { /* the placeholder stays generic */ }
}

async function search(event, { fromAddress = false } = {}) {
  if (event) event.preventDefault();
  const token = $("token").value.trim();
  if (token) sessionStorage.setItem("seek-token", token);
  const query = readQuery();
  if (!query) { setStatus("Type what you are looking for first.", true); return; }
  const universes = readUniverses();
  const address = searchAddress(query, universes);
  if (!fromAddress && `${location.pathname}${location.search}` !== address) history.pushState(null, "", address);
  setStatus("Searching…");
  $("search").disabled = true;
  try {
    const response = await api("/search", {
      query, universes: universes.length ? universes : null, session_id: state.session,
    });
    state.universes = universes.length ? universes : null;  // "Why this?" re-runs the search in this scope
    render(query, await response.json());
  } catch (error) {
    setStatus(error.message, true);
  } finally {
    $("search").disabled = false;
  }
}

function render(query, data) {
  state.query = query;
  state.cards = new Map();
  state.explained = false;
  const results = $("results");
  results.replaceChildren();
  const coverage = $("coverage");
  const notes = [data.coverage_note, ...(data.notes || [])].filter(Boolean);
  coverage.hidden = !notes.length;
  coverage.textContent = notes.join(" · ");
  const severalAngles = (data.angles || []).length > 1;  // the engine's angles: repeats already merged
  let shown = 0;
  for (const [section, cards] of Object.entries(data.groups)) {
    if (!cards.length) continue;
    const grid = el("div", { className: "cards" });
    for (const card of cards) {
      if (state.cards.has(card.id)) continue;
      const node = renderCard(card, severalAngles);
      state.cards.set(card.id, node);
      grid.append(node);
      shown += 1;
    }
    results.append(el("section", { className: "group", dataset: { section } },
      el("h2", {}, section, " ", el("span", { className: "count" }, `(${cards.length})`)), grid));
  }
  setStatus(shown ? `${shown} card${shown === 1 ? "" : "s"} for ${Array.isArray(query) ? query.join(" · ") : query}`
    : "No results.");
}

function renderCard(card, severalAngles = false) {
  const inDeck = state.deck.includes(card.id);
  const why = el("button", { type: "button", className: "secondary why", textContent: "Why this?" });
  why.addEventListener("click", () => explain());
  const add = el("button", { type: "button", className: "secondary add", textContent: inDeck ? "In deck" : "Add to deck" });
  add.setAttribute("aria-pressed", String(inDeck));
  add.addEventListener("click", () => toggleDeck(card.id));
  const deck = [card.deck_name, card.slide_number != null ? `slide ${card.slide_number}` : null]
    .filter(Boolean).join(" · ");
  return el("article", { className: `card${inDeck ? " in-deck" : ""}`, dataset: { id: card.id, verified: String(card.verified) } },
    card.thumbnail ? thumbnail(card) : null,
    el("h3", { textContent: card.title || "(untitled slide)" }),
    el("div", { className: "deck", textContent: deck }),
    el("p", { className: "preview", textContent: card.preview }),
    el("div", { className: "meta" },
      card.verified ? el("span", { className: "badge", textContent: "Verified" }) : null,
      severalAngles && card.angle ? el("span", { className: "angle", textContent: `answers: ${card.angle}` }) : null,
      el("span", { className: "score", textContent: `score ${card.score.toFixed(3)}` })),
    el("div", { className: "explanation", hidden: true }),
    el("div", { className: "actions" }, why, add));
}

// Thumbnails load when their card scrolls into view, through fetch so the bearer token goes with them.
const thumbnails = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    thumbnails.unobserve(entry.target);
    loadImage(entry.target, entry.target.dataset.src);
  }
}, { rootMargin: "200px" });

async function loadImage(img, src) {
  const token = sessionStorage.getItem("seek-token");
  const response = await fetch(src, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!response.ok) { img.hidden = true; return; }
  img.src = URL.createObjectURL(await response.blob());
}

function thumbnail(card) {
  const img = el("img", { className: "thumb", alt: `Slide: ${card.title || card.id}`, dataset: { src: card.thumbnail } });
  img.addEventListener("click", () => showLarge(card));
  thumbnails.observe(img);
  return img;
}

function showLarge(card) {
  const big = el("img", { className: "large", alt: `Slide: ${card.title || card.id}` });
  const node = state.cards.get(card.id);
  const why = node ? node.querySelector(".explanation") : null;
  const dialog = el("dialog", { className: "slide-view" },
    big,
    el("div", { className: "passage" },
      el("h3", { textContent: card.title || "(untitled slide)" }),
      el("div", { className: "deck", textContent: [card.deck_name, card.source_format].filter(Boolean).join(" · ") }),
      el("p", { textContent: card.preview }),
      why && !why.hidden ? el("p", { className: "explanation", textContent: why.textContent }) : null,
      el("button", { type: "button", className: "secondary", textContent: "Close" })));
  dialog.querySelector("button").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  loadImage(big, `${card.thumbnail}?size=large`);
}

async function explain() {
  if (state.explained) return;
  const ids = Array.from(state.cards.keys());
  setStatus("Explaining…");
  document.querySelectorAll("button.why").forEach((b) => { b.disabled = true; });
  try {
    const response = await api("/explain", {
      query: state.query, slide_ids: ids, universes: state.universes, session_id: state.session,
    });
    const data = await response.json();
    for (const item of data.explanations) {
      const card = state.cards.get(item.slide_id);
      if (!card) continue;
      const box = card.querySelector(".explanation");
      box.textContent = item.explanation;
      box.hidden = false;
    }
    state.explained = true;
    setStatus(`Explained ${data.explanations.length} cards.`);
  } catch (error) {
    setStatus(error.message, true);
    document.querySelectorAll("button.why").forEach((b) => { b.disabled = false; });
  }
}

function toggleDeck(id) {
  const at = state.deck.indexOf(id);
  if (at >= 0) state.deck.splice(at, 1); else state.deck.push(id);
  const card = state.cards.get(id);
  if (card) {
    const inDeck = at < 0;
    card.classList.toggle("in-deck", inDeck);
    const add = card.querySelector("button.add");
    add.setAttribute("aria-pressed", String(inDeck));
    add.textContent = inDeck ? "In deck" : "Add to deck";
  }
  updateTray();
}

function updateTray() {
  const n = state.deck.length;
  $("deck-count").textContent = `Deck: ${n} slide${n === 1 ? "" : "s"}`;
  $("download").disabled = n === 0;
  $("clear-deck").disabled = n === 0;
}

async function download() {
  setStatus("Building the deck…");
  try {
    const query = state.query == null ? null : state.query;
    const response = await api("/assemble", { slide_ids: state.deck, query, session_id: state.session });
    const blob = await response.blob();
    const url = URL.createObjectURL(blob);
    const link = el("a", { href: url, download: "seek-deck.pptx" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    setStatus(`Deck downloaded: ${state.deck.length} slides (+ Sources).`);
  } catch (error) {
    setStatus(error.message, true);
  }
}

function clearDeck() {
  for (const id of [...state.deck]) toggleDeck(id);
}

$("search-form").addEventListener("submit", search);
// Enter adds an angle (a new line); Ctrl+Enter or Cmd+Enter searches.
$("query").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("search-form").requestSubmit();
});
$("download").addEventListener("click", download);
$("clear-deck").addEventListener("click", clearDeck);
window.addEventListener("popstate", runSearchInAddress);  // back and forward re-run the search in the address
showUniverses();
runSearchInAddress();
