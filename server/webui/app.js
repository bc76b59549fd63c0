// The skirmish web client: lobby, play, spectate, replay and verify. Plain modern JavaScript
// (ES modules, no build step). It is a client of the server's WebSocket protocol (JSON
// subprotocol, docs/protocol.md) for seats, decisions, commands and live pushes, and draws the
// engine's view state that the server's HTTP API computes for its view (server/webapi.py).
"use strict";
import { draw, legend, miniMap, profile, show, unitStates } from "./board.js";
import { verifyReplay } from "./verify.js";

const $ = (s, root = document) => root.querySelector(s);
const main = $("#main");
const h = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k instanceof Node ? k : String(k));
  return e;
};
const randomHex = (n) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
const seats = {
  get: (gid) => { try { return JSON.parse(localStorage.getItem(`skirmish.seat.${gid}`)); } catch { return null; } },
  set: (gid, seat, token) => localStorage.setItem(`skirmish.seat.${gid}`, JSON.stringify({ seat, token })),
};

async function api(path, token = "") {
  const r = await fetch(`/api/${path}`, { headers: token ? { "X-Skirmish-Token": token } : {} });
  const body = r.headers.get("content-type")?.startsWith("application/json") ? await r.json() : await r.arrayBuffer();
  if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return body;
}

// -- the WebSocket connection ------------------------------------------------------------------
class Wire {
  constructor() {
    this.ids = 1; this.waiting = new Map(); this.listeners = new Set(); this.following = new Map();
    this.ws = null; this.ready = null; this.closedByUs = false;
  }
  url() { return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`; }
  connect() {
    if (this.ready) return this.ready;
    this.ready = new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url(), ["skirmish.v1.json"]);
      this.ws = ws;
      ws.onopen = async () => {
        try { await this.request({ type: "hello", protocol: 1, client: "web" }); resolve(); } catch (e) { reject(e); }
      };
      ws.onmessage = (m) => this.receive(JSON.parse(m.data));
      ws.onerror = () => reject(new Error("cannot reach the server"));
      ws.onclose = () => this.lost();
    });
    return this.ready;
  }
  lost() {
    this.ready = null;
    for (const [, w] of this.waiting) w.reject(new Error("connection lost"));
    this.waiting.clear();
    const following = [...this.following.entries()];
    this.following.clear();
    setStatus("connection lost: reconnecting…");
    setTimeout(async () => {  // a dropped network resumes where it was
      try {
        await this.connect();
        setStatus("");
        for (const [gid, how] of following) await this.follow(gid, how.seat ? seats.get(gid) : null);
        this.emit({ type: "reconnected" });
      } catch { this.lost(); }
    }, 1000);
  }
  send(msg) { msg.id = this.ids++; this.ws.send(JSON.stringify(msg)); return msg.id; }
  request(msg) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) { reject(new Error("not connected: reconnecting, try again")); return; }
      const id = this.send(msg);
      this.waiting.set(id, { resolve, reject });
    });
  }
  receive(msg) {
    if (msg.id && this.waiting.has(msg.id)) {
      const w = this.waiting.get(msg.id); this.waiting.delete(msg.id);
      if (msg.type === "error") { const e = new Error(msg.message); e.code = msg.code; w.reject(e); } else w.resolve(msg);
    }
    if (msg.type === "error" && !msg.id) setStatus(`${msg.code}: ${msg.message}`);
    this.emit(msg);
  }
  emit(msg) { for (const fn of this.listeners) fn(msg); }
  on(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  // Follow a game on this connection: resume a seat (with its token) or watch it.
  async follow(gid, held) {
    await this.connect();
    if (this.following.has(gid)) return this.following.get(gid);
    if (held) {
      try {
        const r = await this.request({ type: "resume", game_id: gid, token: held.token, last_seq: 0 });
        this.following.set(gid, { seat: r.seat });
        return { seat: r.seat };
      } catch (e) { if (e.code !== "auth.not_seated" && e.code !== "auth.bad_token") throw e; }
    }
    await this.request({ type: "spectate", game_id: gid, after_seq: 0 });
    this.following.set(gid, { seat: "" });
    return { seat: "" };
  }
  async seat(kind, args) {
    await this.connect();
    const r = await this.request({ type: kind, ...args, client_seed: randomHex(16), request_id: randomHex(16) });
    seats.set(r.game_id, r.seat, r.token);
    this.following.set(r.game_id, { seat: r.seat });
    return r;
  }
}
const wire = new Wire();
let leaving = () => {};
function setStatus(text) { const s = $("#status"); if (s) s.textContent = text; }

// -- routing -----------------------------------------------------------------------------------
async function route() {
  leaving(); leaving = () => {};
  const [path, q] = location.hash.replace(/^#/, "").split("?");
  const query = new URLSearchParams(q || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  main.replaceChildren();
  try {
    if (parts[0] === "game" && parts[1]) await gamePage(parts[1]);
    else if (parts[0] === "replay" && parts[1]) await replayPage(parts[1], query.get("as") || "all", Number(query.get("seq") || 0));
    else if (parts[0] === "verify") verifyPage();
    else await lobby();
  } catch (e) {
    main.append(h("p", { class: "error", role: "alert" }, `Something went wrong: ${e.message}`), h("a", { href: "#/" }, "back to the lobby"));
  }
  const first = $("h1, h2", main);
  if (first) { first.tabIndex = -1; first.focus({ preventScroll: true }); }
}
window.addEventListener("hashchange", route);

// -- the lobby ---------------------------------------------------------------------------------
async function lobby() {
  document.title = "skirmish — lobby";
  const [missions, bots, tours] = await Promise.all([api("missions"), api("bots"), api("tournaments")]);
  const list = h("ul", { class: "missions" });
  for (const m of missions) {
    const botPick = h("select", { "aria-label": `bot to play ${m.name} against` }, ...bots.bots.map((b) => h("option", { value: b }, b)));
    list.append(h("li", { class: "mission", "data-mission": m.id },
      miniMap(m),
      h("div", {},
        h("h3", {}, m.name),
        h("p", { class: "meta" }, `${m.width}×${m.height} · ${m.units} units · ${m.rounds} rounds` + (m.modules.length ? ` · ${m.modules.join(", ")}` : "")),
        h("p", {}, m.description),
        h("div", { class: "actions" },
          h("button", { onclick: () => createGame(m.id, null) }, "Play a person (share the link)"),
          bots.bots.length ? h("span", { class: "vsbot" }, botPick,
            h("button", { onclick: () => createGame(m.id, botPick.value) }, "Play the bot")) : null))));
  }
  main.append(h("h2", {}, "Missions"), list);
  for (const [status, title] of [["open", "Open games"], ["live", "Live games"], ["finished", "Finished games"]]) {
    const section = h("section", { class: "games", "data-status": status }, h("h2", {}, title));
    main.append(section);
    gameList(section, status, 0);
  }
  if (tours.tournaments.length) {
    main.append(h("section", { class: "tournaments" }, h("h2", {}, "Tournaments"),
      h("ul", {}, ...tours.tournaments.map((t) => h("li", { "data-tournament": t.name },
        t.ready ? h("a", { href: t.report }, t.name) : t.name,
        t.ready ? ` · ${t.format}, ${t.games} games, ${t.entrants.length} entrants; leading: ${t.leader}` : " (no report yet)")))));
  }
  main.append(h("p", {}, h("a", { href: "#/verify" }, "Verify a replay file")));
}

async function gameList(section, status, offset) {
  const page = await api(`games?status=${status}&offset=${offset}&limit=10`);
  const ul = h("ul");
  for (const g of page.games) {
    const mine = seats.get(g.game_id);
    const act = status === "open" ? (mine ? h("a", { href: `#/game/${g.game_id}` }, "resume") : h("button", { onclick: () => joinGame(g.game_id) }, "join"))
      : status === "live" ? h("a", { href: `#/game/${g.game_id}` }, mine ? "resume" : "watch")
        : h("a", { href: `#/replay/${g.game_id}` }, "replay");
    ul.append(h("li", { "data-game": g.game_id }, `${g.game_id} · ${g.mission} · seats ${g.seats.join(", ") || "none"} · ${g.seq} events `, act));
  }
  if (!page.games.length) ul.append(h("li", {}, "none"));
  section.querySelector("ul")?.remove();
  section.querySelector(".pager")?.remove();
  section.append(ul);
  const pager = h("p", { class: "pager" });
  if (offset > 0) pager.append(h("button", { onclick: () => gameList(section, status, Math.max(0, offset - 10)) }, "newer"));
  if (offset + 10 < page.total) pager.append(h("button", { onclick: () => gameList(section, status, offset + 10) }, "older"));
  section.append(pager);
}

async function createGame(mission, bot) {
  setStatus("creating the game…");
  const r = await wire.seat("create_game", { mission, seat: "a" });
  if (bot) await api(`games/${encodeURIComponent(r.game_id)}/house-bot?bot=${encodeURIComponent(bot)}`, r.token);
  setStatus("");
  location.hash = `#/game/${encodeURIComponent(r.game_id)}`;
}

async function joinGame(gid) {
  await wire.seat("join", { game_id: gid, seat: "any" });
  location.hash = `#/game/${encodeURIComponent(gid)}`;
}

// -- playing and watching ----------------------------------------------------------------------
async function gamePage(gid) {
  document.title = `skirmish — game ${gid}`;
  const summary = await api(`games/${encodeURIComponent(gid)}`);
  let held = seats.get(gid);
  const { seat } = await wire.follow(gid, held);
  if (!seat) held = null;
  const ui = layout(`${summary.mission_name}`, seat ? `you play side ${seat}` : "watching (spectator's view)");
  main.append(ui.root);
  if (!seat && summary.status === "open") {
    ui.controls.append(h("button", { class: "join", onclick: async () => {
      try { leaving(); await joinGame(gid); route(); } catch (e) { setStatus(`${e.code || "error"}: ${e.message}`); }
    } }, "Take the free seat"));
  }
  if (!seat && summary.status !== "finished") {
    ui.controls.append(h("p", { class: "share" }, "Share this page's link to invite a player or a spectator."));
  }
  if (seat && summary.status === "open") {
    ui.controls.append(h("p", { class: "share waiting" }, "Waiting for an opponent: send them this link: ",
      h("code", {}, `${location.origin}/#/game/${gid}`)));
  }
  const g = { gid, seat, token: held ? held.token : "", after: 0, view: null, selected: "", clock: null, over: false, answered: 0 };
  const resign = h("button", { class: "danger", onclick: async () => {
    if (!confirm("Resign this game?")) return;
    await wire.request({ type: "resign", game_id: gid, command_id: randomHex(16) });
  } }, "Resign");
  if (seat) ui.controls.append(resign, h("span", { class: "note" }, " (the protocol has no draw offer: a game is drawn on the board)"));
  let timer = null;
  const run = async () => {  // one view request at a time, so an older answer never overwrites a newer one
    if (g.inflight) { g.again = true; return; }
    g.inflight = true;
    try { await update(g, ui); } catch (e) { setStatus(e.message); } finally {
      g.inflight = false;
      if (g.again) { g.again = false; run(); }
    }
  };
  const refresh = () => { clearTimeout(timer); timer = setTimeout(run, 40); };
  const off = wire.on((msg) => {
    if (msg.type === "reconnected") return refresh();
    if (msg.game_id !== gid) return;
    if (msg.type === "decision") g.clock = { side: msg.decision.side, ...msg.clock, at: performance.now(), id: msg.decision.id };
    if (msg.type === "game_over") { g.over = msg; g.clock = null; }
    if (["event", "decision", "game_over", "live", "updates", "ack"].includes(msg.type)) refresh();
  });
  const tick = setInterval(() => drawClock(g, ui), 250);
  leaving = () => { off(); clearInterval(tick); clearTimeout(timer); };
  await run();
}

function layout(title, subtitle) {
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

async function update(g, ui) {
  const v = await api(`games/${encodeURIComponent(g.gid)}/view?as=${g.seat || "spectator"}&after=${g.after}`, g.token);
  g.view = v;
  const s = v.state;
  const focused = focusKey(ui.root);  // redrawing must not take the keyboard's place away
  for (const line of v.log) addLog(ui.log, line);
  g.after = v.seq;
  const onUnit = (id, opts) => {
    g.selected = id;
    profile(ui.profile, s.units[id]);
    if (opts.length === 1) choose(g, opts[0]);
    else if (opts.length) showTargetOptions(g, ui, id, opts);
    drawBoard();
  };
  const drawBoard = () => hiddenUnits(ui, draw(ui.svg, s, { pending: v.pending, selected: g.selected, onOption: (i) => choose(g, v.pending.options[i]), onUnit }));
  drawBoard();
  legend(ui.legend, s, v.legend);
  if (g.selected) profile(ui.profile, s.units[g.selected]);
  ui.info.textContent = info(s, v.pending, g.seat);
  pools(ui.pools, s, g.seat, v.notes);
  decisionPanel(g, ui, v.pending);
  if (focused) $(focused, ui.root)?.focus();
  if (s.started) $(".waiting", ui.root)?.remove();
  if (s.outcome) gameOver(g, ui, s);
}

function focusKey(root) {
  const a = document.activeElement;
  if (!a || !root.contains(a) || !a.dataset) return null;
  for (const k of ["option", "unit", "cell"]) if (a.dataset[k] !== undefined) return `[data-${k}="${CSS.escape(a.dataset[k])}"]`;
  return null;
}

function hiddenUnits(ui, unplaced) {
  ui.hidden.textContent = unplaced && unplaced.length
    ? `Not on the board in this view (hidden): ${unplaced.map((u) => `${u.id} (side ${u.side})`).join(", ")}` : "";
}

function info(s, pending, seat) {
  if (s.outcome) return `Game over: ${s.outcome.winner ? "side " + s.outcome.winner + " wins" : "a draw"} — ${s.outcome.reason}`;
  if (!s.started) return "Waiting for both seats to be taken…";
  const who = pending ? (pending.side === seat ? "your decision" : `side ${pending.side} decides`) : "";
  return `Round ${s.round} of ${s.rounds} · ${s.phase}${s.turn ? " · " + s.turn.unit + " acts" : ""}${who ? " · " + who : ""}`;
}

function addLog(ol, line) {
  const li = h("li", { "data-seq": line.seq }, h("span", { class: "seq" }, line.seq), " ", line.text);
  if (line.ev && line.ev.results) li.append(" ", h("span", { class: "dice", title: `${line.ev.sides}-sided dice, nonce ${line.ev.nonce}` },
    `[${line.ev.results.join(" ")}]`));
  ol.append(li);
  while (ol.children.length > 400) ol.firstChild.remove();
  ol.scrollTop = ol.scrollHeight;
}

function pools(section, s, seat, notes = null) {
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

function decisionPanel(g, ui, p) {
  if (p && p.mine && ui.decision.dataset.id === String(p.id)) return;  // the same decision: keep its panel as it is
  ui.decision.replaceChildren();
  delete ui.decision.dataset.id;
  if (!p) return;
  if (!p.mine) { ui.decision.append(h("p", {}, `Waiting for side ${p.side} (${p.kind}).`)); return; }
  ui.decision.dataset.id = p.id;
  ui.decision.append(h("h3", {}, `Your decision: ${p.kind}${p.unit ? " — " + p.unit : ""}`));
  const onBoard = p.options.filter((o) => o.cell || o.unit);
  if (onBoard.length) ui.decision.append(h("p", { class: "hint" }, "Click a highlighted cell to move there, or a marked unit to act on it."));
  const box = h("div", { class: "buttons" });
  for (const o of p.options.filter((x) => !x.cell && !x.unit)) box.append(optionButton(g, o));
  ui.decision.append(box);
  if (onBoard.length) {
    ui.decision.append(h("details", {}, h("summary", {}, `all ${p.options.length} options as a list`),
      h("div", { class: "buttons" }, ...p.options.map((o) => optionButton(g, o)))));
  }
}

function optionButton(g, o) {
  const extra = o.band ? ` (${o.band}${o.line_of_fire === false ? ", no line of fire" : ""})` : "";
  return h("button", { "data-option": o.i, onclick: () => choose(g, o) }, o.label + extra);
}

function showTargetOptions(g, ui, id, opts) {
  const box = h("div", { class: "buttons targets" }, h("p", {}, `On ${id}:`), ...opts.map((o) => optionButton(g, o)));
  $(".targets", ui.decision)?.remove();
  ui.decision.prepend(box);
  box.querySelector("button")?.focus();
}

async function choose(g, o) {
  const p = g.view && g.view.pending;
  if (!p || g.answered === p.id) return;  // one answer per decision (the next may come before this one's ack)
  g.answered = p.id;
  try {
    await wire.request({ type: "command", game_id: g.gid, decision_id: p.id, option: o.option, command_id: randomHex(16) });
  } catch (e) {
    if (e.code !== "game.stale_decision") {
      setStatus(`${e.code || "error"}: ${e.message}`);
      if (g.answered === p.id) g.answered = 0;  // not taken: the same decision may be answered again
    }
  }
}

function drawClock(g, ui) {
  const c = g.clock;
  if (!c || g.over) { ui.clock.textContent = ""; return; }
  const spent = performance.now() - c.at;
  const move = Math.max(0, c.move_ms - spent), reserve = Math.max(0, c.reserve_ms - Math.max(0, spent - c.move_ms));
  ui.clock.textContent = `side ${c.side}'s clock: ${(move / 1000).toFixed(0)} s + reserve ${(reserve / 1000).toFixed(0)} s` +
    (c.timeouts ? ` · ${c.timeouts} time-outs` : "");
}

function gameOver(g, ui, s) {
  if ($(".over", ui.root)) return;
  const head = g.over && g.over.head_hash ? g.over.head_hash : "";
  ui.controls.replaceChildren(h("div", { class: "over", role: "status" },
    h("p", {}, `Game over: ${s.outcome.winner ? "side " + s.outcome.winner + " wins" : "a draw"} (${s.outcome.reason}).`),
    head ? h("p", {}, "Head hash: ", h("code", {}, head)) : null,
    h("a", { href: `#/replay/${encodeURIComponent(g.gid)}?as=${g.seat || "all"}` }, "Replay and verify this game")));
}

// -- replay ------------------------------------------------------------------------------------
export function applyStep(state, step) {
  const c = step.change;
  if (c) {
    for (const [k, v] of Object.entries(c.set || {})) state[k] = structuredClone(v);
    for (const [k, entries] of Object.entries(c.sub || {})) {
      state[k] = state[k] || {};
      for (const [e, v] of Object.entries(entries)) state[k][e] = structuredClone(v);
    }
  }
  state.seq = step.seq;
}

class Timeline {
  constructor(frames) {
    this.frames = frames;
    this.snapshots = [];  // every 64th state
    let s = structuredClone(frames.first);
    frames.steps.forEach((step, i) => {
      if (i) applyStep(s, step);
      if (i % 64 === 0) this.snapshots.push(structuredClone(s));
    });
  }
  at(n) {  // the state after event n (1-based); stepping forward applies only the steps between
    const i = Math.max(0, Math.min(n - 1, this.frames.steps.length - 1));
    if (!this.cur || i < this.i || i - this.i > 64) {
      const k = Math.floor(i / 64);
      this.cur = structuredClone(this.snapshots[k]);
      this.i = k * 64;
    }
    for (let j = this.i + 1; j <= i; j++) applyStep(this.cur, this.frames.steps[j]);
    this.i = i;
    return this.cur;
  }
}

async function replayPage(gid, viewer, startSeq) {
  document.title = `skirmish — replay ${gid}`;
  const summary = await api(`games/${encodeURIComponent(gid)}`);
  if (!summary.over) { location.hash = `#/game/${encodeURIComponent(gid)}`; return; }
  const frames = await api(`games/${encodeURIComponent(gid)}/frames?as=${viewer}`);
  const tl = new Timeline(frames);
  const steps = frames.steps, n = steps.length;
  const ui = layout(`Replay: ${summary.mission_name}`, `${gid} · ${summary.outcome.winner ? "side " + summary.outcome.winner + " won" : "a draw"} — ${summary.outcome.reason}`);
  main.append(ui.root);
  const viewPick = h("select", { "aria-label": "whose view", onchange: () => { location.hash = `#/replay/${encodeURIComponent(gid)}?as=${viewPick.value}&seq=${cur}`; } },
    ...[["all", "full log"], ["a", "side a's view"], ["b", "side b's view"], ["spectator", "spectator's view"]].map(([v, t]) => h("option", { value: v, selected: v === viewer }, t)));
  const slider = h("input", { type: "range", min: 1, max: n, value: n, "aria-label": "event", class: "slider" });
  const where = h("p", { class: "where", "aria-live": "polite" });
  let cur = startSeq > 0 ? Math.min(startSeq, n) : n;
  const is = (i, types) => steps[i - 1] && types.includes(steps[i - 1].type);
  const seek = (from, dir, types) => { for (let i = from + dir; i >= 1 && i <= n; i += dir) if (is(i, types)) return i; return dir > 0 ? n : 1; };
  const go = (i) => { cur = Math.max(1, Math.min(n, i)); slider.value = cur; show_(); };
  let playing = null;
  const btn = (label, title, fn) => h("button", { title, "aria-label": title, onclick: fn }, label);
  const controls = h("div", { class: "replay-controls" },
    viewPick,
    btn("« round", "previous round", () => go(seek(cur, -1, ["RoundStarted"]))),
    btn("‹ decision", "previous decision", () => go(seek(cur, -1, ["OptionChosen"]))),
    btn("‹ event", "previous event", () => go(cur - 1)),
    slider,
    btn("event ›", "next event", () => go(cur + 1)),
    btn("decision ›", "next decision", () => go(seek(cur, 1, ["OptionChosen"]))),
    btn("round »", "next round", () => go(seek(cur, 1, ["RoundStarted"]))),
    btn("play", "play / pause", () => {
      if (playing) { clearInterval(playing); playing = null; return; }
      playing = setInterval(() => { if (cur >= n) { clearInterval(playing); playing = null; } else go(cur + 1); }, 60);
    }));
  slider.addEventListener("input", () => { cur = Number(slider.value); show_(); });
  ui.root.insertBefore(h("div", {}, controls, where), ui.root.children[1]);
  const verifyOut = h("div", { class: "verify-out", "aria-live": "polite" });
  ui.controls.append(
    h("button", { onclick: async () => {
      verifyOut.textContent = "verifying in this browser…";
      const data = new Uint8Array(await api(`games/${encodeURIComponent(gid)}/replay.skr`));
      showVerdict(verifyOut, await verifyReplay(data, { expectHead: summary.head_hash }));
    } }, "Verify in this browser"),
    " ", h("a", { href: `/api/games/${encodeURIComponent(gid)}/replay.skr`, download: `${gid}.skr` }, "download the replay file"),
    verifyOut);
  leaving = () => { if (playing) clearInterval(playing); };
  function show_() {
    const s = tl.at(cur);
    const step = steps[cur - 1];
    where.textContent = `event ${cur} of ${n}` + (step.hidden ? " (hidden from this view)" : `: ${step.type}${step.text ? " — " + step.text.trim() : ""}`);
    hiddenUnits(ui, draw(ui.svg, s, { selected: "", onUnit: (id) => profile(ui.profile, s.units[id]) }));
    ui.svg.dataset.seq = cur;
    if (!ui.legend.childElementCount) legend(ui.legend, s, frames.legend);
    ui.info.textContent = info(s, null, "");
    pools(ui.pools, s, viewer === "a" || viewer === "b" ? viewer : "");
    if (shownUpTo === cur - 1 && cur > 1) { if (steps[cur - 1].text) addLog(ui.log, steps[cur - 1]); }
    else {
      ui.log.replaceChildren();
      for (const line of steps.slice(Math.max(0, cur - 60), cur)) if (line.text) addLog(ui.log, line);
    }
    shownUpTo = cur;
  }
  let shownUpTo = 0;
  show_();
}

// -- verify a file -----------------------------------------------------------------------------
function showVerdict(out, r) {
  out.replaceChildren(
    h("p", { class: r.ok ? "ok" : "bad", "data-verdict": r.ok ? "ok" : "failed", "data-bad-seq": r.bad ? r.bad.seq : "" },
      r.ok ? `OK: verified in this browser (${r.events} events)` : `FAILED at event ${r.bad.seq}: ${r.bad.problem}`),
    h("ul", {}, ...r.checks.map((c) => h("li", {}, c))));
}

function verifyPage() {
  document.title = "skirmish — verify a replay file";
  const out = h("div", { class: "verify-out", "aria-live": "polite" });
  const expect = h("input", { type: "text", placeholder: "head hash the server announced (optional)", "aria-label": "expected head hash", size: 64 });
  const run = async (file) => {
    out.textContent = `verifying ${file.name}…`;
    try {
      const r = await verifyReplay(new Uint8Array(await file.arrayBuffer()), { expectHead: expect.value.trim() });
      showVerdict(out, r);
      const gid = r.header && String(r.header.game_id || "");
      if (r.ok && gid) {  // the board needs the engine: offered when this server holds this very log
        try {
          const g = await api(`games/${encodeURIComponent(gid)}`);
          if (g.over && g.head_hash === String(r.header.head_hash)) {
            out.append(h("p", {}, "This server holds this very game (the same head hash): ",
              h("a", { href: `#/replay/${encodeURIComponent(gid)}` }, "watch it on the board")));
          }
        } catch { /* not on this server: verified, listed, not drawn */ }
      }
      if (r.decoded) out.append(h("details", {}, h("summary", {}, `the ${r.decoded.length} events`),
        h("ol", { class: "events" }, ...r.decoded.map((e) => h("li", {}, `${e.type} ${show(Object.fromEntries(Object.entries(e).filter(([k]) => k !== "type" && k !== "board" && k !== "units")))}`.slice(0, 300))))));
    } catch (e) { out.replaceChildren(h("p", { class: "bad", "data-verdict": "unreadable" }, e.message)); }
  };
  const input = h("input", { type: "file", accept: ".skr,application/octet-stream", "aria-label": "replay file", onchange: () => input.files[0] && run(input.files[0]) });
  const drop = h("div", { class: "drop", tabindex: 0 }, "Drop a replay file (.skr) here, or choose one: ", input);
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); if (e.dataTransfer.files[0]) run(e.dataTransfer.files[0]); });
  main.append(h("h2", {}, "Verify a replay file"),
    h("p", {}, "The hash chain, the seed commitment and every die are recomputed here, with this browser's own crypto: nothing is sent to the server. (To watch a game on the board, open it from the lobby's finished games.)"),
    drop, h("p", {}, expect), out);
}

// for tests and the curious: the pieces, from the console
window.skirmish = { wire, verifyReplay, unitStates };
route();
