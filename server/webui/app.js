// The skirmish web client: lobby, play, spectate, replay and verify. Plain modern JavaScript
// (ES modules, no build step). It is a client of the server's WebSocket protocol (JSON
// subprotocol, docs/protocol.md) for seats, decisions, commands and live pushes, and draws the
// engine's view state that the server's HTTP API computes for its view (server/webapi.py).
"use strict";
import { draw, legend, miniMap, profile, unitStates } from "./board.js";
import { replayPage, verifyPage } from "./replay.js";
import { verifyReplay } from "./verify.js";
import { $, addLog, api, h, hiddenUnits, info, layout, leave, main, onLeave, pools, setStatus } from "./ui.js";

const randomHex = (n) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
const seats = {
  get: (gid) => { try { return JSON.parse(localStorage.getItem(`skirmish.seat.${gid}`)); } catch { return null; } },
  set: (gid, seat, token) => localStorage.setItem(`skirmish.seat.${gid}`, JSON.stringify({ seat, token })),
};


// -- the WebSocket connection ------------------------------------------------------------------
class Wire {
  constructor() {
    this.ids = 1; this.waiting = new Map(); this.listeners = new Set(); this.following = new Map();
    this.ws = null; this.ready = null; this.closedByUs = false; this.retrying = null;
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
  lost() {  // (called by a failed attempt's error and again by its close: one retry at a time)
    this.ready = null;
    for (const [, w] of this.waiting) w.reject(new Error("connection lost"));
    this.waiting.clear();
    if (this.retrying) return;
    setStatus("connection lost: reconnecting…");
    this.retrying = setTimeout(async () => {  // a dropped network, or a restarted server, resumes where it was
      try {
        await this.connect();
        // the games followed stay listed until followed again, however many attempts it takes
        for (const [gid, how] of [...this.following.entries()]) await this.follow(gid, how.seat ? seats.get(gid) : null, true);
        setStatus("");
        this.retrying = null;
        this.emit({ type: "reconnected" });
      } catch { this.retrying = null; this.lost(); }
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
  async follow(gid, held, again = false) {
    await this.connect();
    if (this.following.has(gid) && !again) return this.following.get(gid);
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


// -- routing -----------------------------------------------------------------------------------
async function route() {
  leave();
  const [path, q] = location.hash.replace(/^#/, "").split("?");
  const query = new URLSearchParams(q || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  main.replaceChildren();
  try {
    if (parts[0] === "game" && parts[1]) await gamePage(parts[1]);
    else if (parts[0] === "replay" && parts[1]) await replayPage(parts[1], query.get("as") || "all", Number(query.get("seq") || 0));
    else if (parts[0] === "verify") verifyPage(wire);
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
    const sidePick = h("select", { "aria-label": `your side in ${m.name}`, class: "side-pick" },
      ...Object.entries(m.sides || {}).map(([side, name]) => h("option", { value: side }, `as side ${side}${name ? " (" + name + ")" : ""}`)));
    list.append(h("li", { class: "mission", "data-mission": m.id },
      miniMap(m),
      h("div", {},
        h("h3", {}, m.name),
        h("p", { class: "meta" }, `${m.width}×${m.height} · ${m.units} units · ${m.rounds} rounds` + (m.modules.length ? ` · ${m.modules.join(", ")}` : "")),
        h("p", {}, m.description),
        h("div", { class: "actions" },
          sidePick,
          h("button", { onclick: () => createGame(m.id, null, sidePick.value) }, "Play a person (share the link)"),
          bots.bots.length ? h("span", { class: "vsbot" }, botPick,
            h("button", { onclick: () => createGame(m.id, botPick.value, sidePick.value) }, "Play the bot")) : null))));
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

async function createGame(mission, bot, side = "a") {
  setStatus("creating the game…");
  const r = await wire.seat("create_game", { mission, seat: side || "a" });
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
      try { leave(); await joinGame(gid); route(); } catch (e) { setStatus(`${e.code || "error"}: ${e.message}`); }
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
  const draw = h("button", { class: "draw", onclick: async () => {
    try { await wire.request({ type: "offer_draw", game_id: gid, command_id: randomHex(16) }); } catch (e) { setStatus(`${e.code || "error"}: ${e.message}`); }
  } }, "Offer a draw");
  ui.drawOffer = h("span", { class: "draw-offer", role: "status" });
  if (seat) ui.controls.append(resign, draw, ui.drawOffer);
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
  onLeave(() => { off(); clearInterval(tick); clearTimeout(timer); });
  await run();
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
  const onCell = (k, opts) => showTargetOptions(g, ui, `(${k})`, opts);  // several options on one cell
  const drawBoard = () => hiddenUnits(ui, draw(ui.svg, s, { pending: v.pending, selected: g.selected, onOption: (i) => choose(g, v.pending.options[i]), onUnit, onCell }));
  drawBoard();
  legend(ui.legend, s, v.legend);
  if (g.selected) profile(ui.profile, s.units[g.selected]);
  ui.info.textContent = info(s, v.pending, g.seat);
  pools(ui.pools, s, g.seat, v.notes);
  decisionPanel(g, ui, v.pending, v.procedure);
  if (focused) $(focused, ui.root)?.focus();
  if (s.started) $(".waiting", ui.root)?.remove();
  drawOffer(g, ui, s);
  if (s.outcome) gameOver(g, ui, s);
}

function focusKey(root) {
  const a = document.activeElement;
  if (!a || !root.contains(a) || !a.dataset) return null;
  for (const k of ["option", "unit", "cell"]) if (a.dataset[k] !== undefined) return `[data-${k}="${CSS.escape(a.dataset[k])}"]`;
  return null;
}

// The pending decision: what it asks (the server's title, as the text client says it), the
// procedure under way, and every option: those on a cell or naming a unit are clicked on the
// board (and listed too), the rest are buttons labelled by the server's text rendering. Nothing
// here knows an option's kind, so a module's new options need no change to the page.
function decisionPanel(g, ui, p, procedure = "") {
  if (p && p.mine && ui.decision.dataset.id === String(p.id)) return;  // the same decision: keep its panel as it is
  ui.decision.replaceChildren();
  delete ui.decision.dataset.id;
  delete ui.decision.dataset.kind;
  delete ui.decision.dataset.unit;
  if (!p) return;
  const title = p.title || p.kind;
  if (!p.mine) { ui.decision.append(h("p", {}, `Waiting for side ${p.side}: ${title}${p.unit ? " (" + p.unit + ")" : ""}.`)); return; }
  ui.decision.dataset.id = p.id;
  ui.decision.dataset.kind = p.kind;
  ui.decision.dataset.unit = p.unit || "";
  ui.decision.append(h("h3", {}, `Your decision: ${title}${p.unit ? " — " + p.unit : ""}`));
  if (procedure) ui.decision.append(h("pre", { class: "procedure" }, procedure));
  const onBoard = p.options.filter((o) => o.cell || o.unit);
  const cells = onBoard.some((o) => o.cell), units = onBoard.some((o) => o.unit);
  if (onBoard.length) {
    const what = [cells ? "a highlighted cell on the board" : "", units ? "a marked unit to act on it" : ""].filter(Boolean);
    ui.decision.append(h("p", { class: "hint" }, `Click ${what.join(", or ")}.`));
  }
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

// A draw by agreement (docs/protocol.md, offer_draw): the standing offer, said to both seats; the
// other seat's "Offer a draw" button accepts it (and says so).
function drawOffer(g, ui, s) {
  const button = $("button.draw", ui.controls);
  if (!ui.drawOffer || !button) return;
  const offer = s.draw_offer || "";
  button.disabled = !s.started || !!s.outcome || offer === g.seat;
  button.textContent = offer && offer !== g.seat ? "Accept the draw" : "Offer a draw";
  ui.drawOffer.textContent = !offer ? "" : offer === g.seat
    ? ` You offered a draw: side ${offer === "a" ? "b" : "a"} accepts it, or declines it by playing on.`
    : ` Side ${offer} offers a draw: accept it, or decline it by playing on.`;
  ui.drawOffer.dataset.offer = offer;
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

// for tests and the curious: the pieces, from the console
window.skirmish = { wire, verifyReplay, unitStates };
route();
