// What the pages of the web client share: element helpers, the HTTP API, the page layout and
// the panels both the game page and the replay viewer draw (the log, the pools, the unit list).
"use strict";

export const $ = (s, root = document) => root.querySelector(s);
export const main = $("#main");
export const h = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k instanceof Node ? k : String(k));
  return e;
};
export async function api(path, token = "") {
  const r = await fetch(`/api/${path}`, { headers: token ? { "X-Skirmish-Token": token } : {} });
  const body = r.headers.get("content-type")?.startsWith("application/json") ? await r.json() : await r.arrayBuffer();
  if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return body;
}

export function setStatus(text) { const s = $("#status"); if (s) s.textContent = text; }

export function layout(title, subtitle) {
  const root = h("div", { class: "game" });
  const ui = {
    root,
    head: h("div", { class: "head" }, h("h2", {}, title), h("p", { class: "sub" }, subtitle)),
    info: h("p", { class: "info", "aria-live": "polite" }),
    clock: h("p", { class: "clock", "aria-live": "off" }),
    svg: document.createElementNS("http://www.w3.org/2000/svg", "svg"),
    legend: h("div", { class: "legend", "aria-label": "terrain legend" }),
    hidden: h("p", { class: "hidden-units" }),
    decision: h("section", { class: "decision", "aria-label": "your decision" }),
    pools: h("section", { class: "pools", "aria-label": "pools" }),
    profile: h("section", { class: "profile", "aria-label": "unit profile" }),
    log: h("ol", { class: "log", "aria-label": "narrated log" }),
    controls: h("div", { class: "controls" }),
  };
  ui.svg.setAttribute("class", "board");
  ui.svg.setAttribute("aria-label", "the board");
  root.append(ui.head, ui.info, ui.clock,
    h("div", { class: "play" },
      h("div", { class: "boardwrap" }, ui.svg, ui.legend, ui.hidden),
      h("div", { class: "side" }, ui.decision, ui.pools, ui.profile, h("h3", {}, "Log"), ui.log)),
    ui.controls);
  return ui;
}

export function hiddenUnits(ui, unplaced) {  // the units in the board's tray, said in words too
  const why = (u) => (u.off_table ? "not on the table" : "position hidden");
  ui.hidden.textContent = unplaced && unplaced.length
    ? `Off the board in this view: ${unplaced.map((u) => `${u.id} (side ${u.side}, ${why(u)})`).join(", ")}` : "";
}

export function info(s, pending, seat) {
  if (s.outcome) return `Game over: ${s.outcome.winner ? "side " + s.outcome.winner + " wins" : "a draw"} — ${s.outcome.reason}`;
  if (!s.started) return "Waiting for both seats to be taken…";
  const who = pending ? (pending.side === seat ? "your decision" : `side ${pending.side} decides`) : "";
  const round = s.phase === "deployment" ? `Before round 1 of ${s.rounds}` : `Round ${s.round} of ${s.rounds}`;
  return `${round} · ${s.phase}${s.turn ? " · " + s.turn.unit + " acts" : ""}${who ? " · " + who : ""}`;
}

export function addLog(ol, line) {
  const li = h("li", { "data-seq": line.seq }, h("span", { class: "seq" }, line.seq), " ", line.text);
  if (line.ev && line.ev.results) li.append(" ", h("span", { class: "dice", title: `${line.ev.sides}-sided dice, nonce ${line.ev.nonce}` },
    `[${line.ev.results.join(" ")}]`));
  ol.append(li);
  while (ol.children.length > 400) ol.firstChild.remove();
  ol.scrollTop = ol.scrollHeight;
}

export function pools(section, s, seat, notes = null) {
  section.replaceChildren(h("h3", {}, "Pools"));
  const dl = h("dl");
  for (const [k, v] of Object.entries(s)) {  // every per-side number the state holds
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length && Object.keys(v).every((x) => x === "a" || x === "b") &&
      Object.values(v).every((x) => typeof x === "number") && (k === "momentum" || k === "threat" || Object.values(v).some((x) => x > 0))) {
      dl.append(h("dt", {}, k.replace(/_/g, " ")), h("dd", {}, Object.entries(v).map(([side, n]) => `${side}: ${n}`).join(" · ")));
    }
  }
  const fate = Object.values(s.units || {}).filter((u) => u.fate);
  if (fate.length) dl.append(h("dt", {}, "fate"), h("dd", {}, fate.map((u) => `${u.id} ${u.fate}`).join(" · ")));
  if (s.hands && seat && s.hands[seat]) dl.append(h("dt", {}, "your hand"), h("dd", { class: "hand" }, s.hands[seat].map((c) => (typeof c === "string" && c ? c : "hidden card")).join(", ") || "no cards"));
  if (s.hands) for (const side of ["a", "b"]) if (side !== seat && s.hands[side]) dl.append(h("dt", {}, `side ${side}'s hand`), h("dd", {}, `${s.hands[side].length} cards`));
  section.append(dl);
  if (notes && notes.length) section.append(h("ul", { class: "notes" }, ...notes.map((n) => h("li", {}, n))));  // the modules' own words
}


// what the page being left must stop (timers, subscriptions): set by each page, run by the router
let leaving = () => {};
export function onLeave(fn) { leaving = fn; }
export function leave() { leaving(); leaving = () => {}; }
