// The replay viewer (a finished game from the server, stepped and scrubbed from any view) and the
// verify page (a replay file checked in the browser: server/webui/verify.js).
"use strict";
import { draw, legend, profile, show } from "./board.js";
import { verifyReplay } from "./verify.js";
import { addLog, api, h, hiddenUnits, info, layout, leave, main, onLeave, pools } from "./ui.js";

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

export async function replayPage(gid, viewer, startSeq) {
  document.title = `skirmish — replay ${gid}`;
  const summary = await api(`games/${encodeURIComponent(gid)}`);
  if (!summary.over) { location.hash = `#/game/${encodeURIComponent(gid)}`; return; }
  const frames = await api(`games/${encodeURIComponent(gid)}/frames?as=${viewer}`);
  const ui = layout(`Replay: ${summary.mission_name}`, `${gid} · ${summary.outcome.winner ? "side " + summary.outcome.winner + " won" : "a draw"} — ${summary.outcome.reason}`);
  main.append(ui.root);
  boardViewer(ui, frames, viewer, startSeq, (as, seq) => { location.hash = `#/replay/${encodeURIComponent(gid)}?as=${as}&seq=${seq}`; });
  const verifyOut = h("div", { class: "verify-out", "aria-live": "polite" });
  ui.controls.append(
    h("button", { onclick: async () => {
      verifyOut.textContent = "verifying in this browser…";
      const data = new Uint8Array(await api(`games/${encodeURIComponent(gid)}/replay.skr`));
      showVerdict(verifyOut, await verifyReplay(data, { expectHead: summary.head_hash }));
    } }, "Verify in this browser"),
    " ", h("a", { href: `/api/games/${encodeURIComponent(gid)}/replay.skr`, download: `${gid}.skr` }, "download the replay file"),
    verifyOut);
}

// The one replay viewer (slider, steps by event / decision / round, views), whatever its frames'
// source: the server's stored game (``replayPage``) or a replay file dropped here (``fileViewer``).
// ``pickView(as, seq)``: show another view, from event seq.
function boardViewer(ui, frames, viewer, startSeq, pickView) {
  const tl = new Timeline(frames);
  const steps = frames.steps, n = steps.length;
  const viewPick = h("select", { "aria-label": "whose view", onchange: () => pickView(viewPick.value, cur) },
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
  onLeave(() => { if (playing) clearInterval(playing); });
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

// -- a dropped file on the board -------------------------------------------------------------------
function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

// A file this server does not hold: the server verifies it and folds its game into the same frames
// as a stored game's (the WebSocket message replay_frames, docs/protocol.md); nothing is stored.
async function fileViewer(wire, name, bytes, viewer, startSeq) {
  await wire.connect();
  const frames = await wire.request({ type: "replay_frames", file: base64(bytes), as: viewer });
  leave();
  main.replaceChildren();
  document.title = `skirmish — replay ${name}`;
  const ui = layout(`Replay: ${frames.game_id}`, `from the file ${name}, verified by the server (which does not hold this game)`);
  ui.root.dataset.source = "file";
  ui.root.dataset.viewer = viewer;
  main.append(ui.root);
  boardViewer(ui, frames, viewer, startSeq, (as, seq) => fileViewer(wire, name, bytes, as, seq).catch((e) => ui.controls.append(h("p", { class: "bad" }, e.message))));
  ui.controls.append(h("button", { onclick: () => { leave(); main.replaceChildren(); verifyPage(wire); } }, "verify another file"));
}

export function verifyPage(wire) {
  document.title = "skirmish — verify a replay file";
  const out = h("div", { class: "verify-out", "aria-live": "polite" });
  const expect = h("input", { type: "text", placeholder: "head hash the server announced (optional)", "aria-label": "expected head hash", size: 64 });
  const run = async (file) => {
    out.textContent = `verifying ${file.name}…`;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const r = await verifyReplay(bytes, { expectHead: expect.value.trim() });
      const offerFile = () => {  // not on this server (or another log under its id): the server replays the file itself
        const said = h("span", { "aria-live": "polite" });
        out.append(h("p", {}, "This server does not hold this game: ",
          h("button", { class: "watch-file", onclick: async () => {
            said.textContent = " sending the file to the server to verify and replay…";
            try { await fileViewer(wire, file.name, bytes, "all", 0); } catch (e) { said.textContent = ` ${e.code || "error"}: ${e.message}`; }
          } }, "watch it on the board"), said));
      };
      showVerdict(out, r);
      const gid = r.header && String(r.header.game_id || "");
      if (r.ok && gid) {  // the board needs the engine: offered when this server holds this very log
        try {
          const g = await api(`games/${encodeURIComponent(gid)}`);
          if (g.over && g.head_hash === String(r.header.head_hash)) {
            out.append(h("p", {}, "This server holds this very game (the same head hash): ",
              h("a", { href: `#/replay/${encodeURIComponent(gid)}` }, "watch it on the board")));
          } else offerFile();
        } catch { offerFile(); }
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
    h("p", {}, "The hash chain, the seed commitment and every die are recomputed here, with this browser's own crypto: nothing is sent to the server. (To watch it on the board, the file is then sent to the server, which verifies and replays it without keeping it.)"),
    drop, h("p", {}, expect), out);
}
