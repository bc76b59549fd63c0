// The board: an SVG drawn from a state (the engine's view state as the API serves it), with
// terrain and its legend, objectives, deployment zones, gates, units in side colours with their
// states, and the pending decision's cells and targets to click. Keyboard: every clickable
// thing is a focusable element; Enter or Space activates it.
"use strict";

const NS = "http://www.w3.org/2000/svg";
export const TERRAIN_CLASS = {
  ".": "open", "#": "block", "+": "cover", "~": "water", ":": "desert", "^": "mountain", "%": "jungle",
  "0": "zerog", "a": "zone-a", "b": "zone-b", "*": "marker", "n": "gate-n", "w": "gate-w",
};
const CELL = 40;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// The states a unit is in, as short badges: known ones named, any other true flag shown by name.
const BADGES = {
  dead: "dead", prone: "prone", captured: "captured", fear: "Fear", unconscious: "pilot out", stealthed: "hidden",
  guarding: "guard", readied: "ready", exposed: "exposed", stabilised: "stabilised", acted: "acted",
  resting: "resting", removed: "removed", directed: "directed",
};
const QUIET = new Set(["avoid_available", "commander", "command_unit", "deployed", "off_table"]);

export function isHidden(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) &&
    (v.type === "Hidden" || v.kind === "Hidden" || v.hidden === true || "Hidden" in v);
}

export function unitStates(u) {
  const out = [];
  if (u.injury) out.push(u.injury === "lethal" ? "lethal injury" : "injured");
  for (const [k, v] of Object.entries(u)) {
    if (v === true && !QUIET.has(k)) out.push(BADGES[k] || k.replace(/_/g, " "));
    else if (isHidden(v)) out.push(`${k}: hidden`);
  }
  if (u.dragging) out.push(`dragging ${u.dragging}`);
  return out;
}

// draw(svg, state, opts): opts.pending (decorated decision), opts.onOption(i), opts.onUnit(id),
// opts.selected (unit id)
export function draw(svg, state, opts = {}) {
  const b = state.board;
  const key = `${b.width}x${b.height}:${b.cells}`;
  let cells = svg.firstElementChild;
  const off = offTable(state);  // drawn in a tray under the board
  const trayRows = off.length ? Math.ceil(off.length / b.width) : 0;
  svg.setAttribute("viewBox", `0 0 ${b.width * CELL} ${(b.height + trayRows) * CELL + (trayRows ? TRAY_GAP : 0)}`);
  if (!cells || cells.dataset.key !== key) {  // the terrain is drawn once per board; the rest every time
    svg.replaceChildren();
    svg.setAttribute("role", "group");
    cells = el("g", { class: "cells", "data-key": key }, svg);
    for (let y = 0; y < b.height; y++) {
      for (let x = 0; x < b.width; x++) {
        const t = b.cells[y * b.width + x];
        el("rect", { x: x * CELL, y: y * CELL, width: CELL, height: CELL, class: `cell t-${TERRAIN_CLASS[t] || "other"}`,
          "data-x": x, "data-y": y }, cells);
      }
    }
  } else {
    while (cells.nextSibling) cells.nextSibling.remove();
  }
  for (const o of Object.values(state.objectives || {})) {
    const g = el("g", { class: `objective ${o.holder ? "held-" + o.holder : ""}`, "data-objective": o.id }, svg);
    el("polygon", { points: star(o.x * CELL + CELL / 2, o.y * CELL + CELL / 2, CELL * 0.42, CELL * 0.18) }, g);
    el("title", {}, g).textContent = `${o.name} (${o.points ?? 1} pt${o.holder ? ", held by side " + o.holder : ""})`;
  }
  for (const it of Object.values(state.items || {})) {
    if (it.carrier) continue;
    const g = el("g", { class: "item" }, svg);
    el("rect", { x: it.x * CELL + 6, y: it.y * CELL + 6, width: 10, height: 10 }, g);
    el("title", {}, g).textContent = it.name;
  }
  for (const f of Object.values(state.facilities || {})) {
    if (f.x === undefined) continue;
    const g = el("g", { class: `facility ${f.destroyed ? "destroyed" : ""}` }, svg);
    el("rect", { x: f.x * CELL + 3, y: f.y * CELL + 3, width: CELL - 6, height: CELL - 6 }, g);
    el("title", {}, g).textContent = f.name || f.id;
  }
  const pending = opts.pending && opts.pending.mine ? opts.pending : null;
  const targets = {};
  const cellOptions = [];
  if (pending) {
    for (const o of pending.options) {
      if (o.cell) cellOptions.push(o);
      else if (o.unit) (targets[o.unit] = targets[o.unit] || []).push(o);
    }
  }
  const acting = state.turn ? state.turn.unit : "";
  const actor = pending && state.units ? state.units[pending.unit] : null;
  if (actor && typeof actor.x === "number") {  // lines of fire from the deciding unit to its targets
    for (const [uid, list] of Object.entries(targets)) {
      const t = state.units[uid], o = list.find((x) => x.band);
      if (!o || !t || typeof t.x !== "number") continue;
      el("line", { x1: actor.x * CELL + CELL / 2, y1: actor.y * CELL + CELL / 2, x2: t.x * CELL + CELL / 2,
        y2: t.y * CELL + CELL / 2, class: `lof ${o.line_of_fire === false ? "blocked" : "clear"}`,
        "data-band": o.band }, svg);
    }
  }
  const order = Object.values(state.units || {}).sort((x, y) => Number(!x.dead) - Number(!y.dead));  // the fallen below
  for (const u of order) {
    if (u.removed || !placed(u)) continue;
    const states = unitStates(u);
    const cls = ["unit", `side-${u.side}`];
    if (u.dead) cls.push("dead");
    if (u.prone) cls.push("prone");
    if (u.injury) cls.push("injured");
    if (u.captured) cls.push("captured");
    if (u.stealthed) cls.push("stealthed");
    if (u.id === acting) cls.push("acting");
    if (u.id === opts.selected) cls.push("selected");
    if (targets[u.id]) cls.push("target");
    if (isHidden(u.name)) cls.push("marker");  // known to be there, not who it is
    const g = el("g", { class: cls.join(" "), tabindex: 0, role: "button", "data-unit": u.id,
      "aria-label": `${u.id} ${nameOf(u)}, side ${u.side}${states.length ? ", " + states.join(", ") : ""}`,
      "data-x": u.x, "data-y": u.y, "data-states": states.join(",") }, svg);
    const cx = u.x * CELL + CELL / 2, cy = u.y * CELL + CELL / 2;
    el("circle", { cx, cy, r: CELL * 0.38 }, g);
    const label = el("text", { x: cx, y: cy + 4, "text-anchor": "middle" }, g);
    label.textContent = u.id.length <= 3 ? u.id : u.id.slice(0, 3);
    if (states.length) {
      const badge = el("text", { x: u.x * CELL + CELL - 3, y: u.y * CELL + 11, "text-anchor": "end", class: "badge" }, g);
      badge.textContent = states.map((s) => s[0].toUpperCase()).join("");
    }
    el("title", {}, g).textContent = `${u.id} ${nameOf(u)}` + (states.length ? ` — ${states.join(", ")}` : "") +
      (targets[u.id] ? ` — ${targets[u.id].map((o) => o.label).join("; ")}` : "");
    activate(g, () => opts.onUnit && opts.onUnit(u.id, targets[u.id] || []));
  }
  const byCell = new Map();  // several options on one cell (a move and a bonus move): one rect, a choice
  for (const o of cellOptions) {
    const k = `${o.cell[0]},${o.cell[1]}`;
    byCell.set(k, [...(byCell.get(k) || []), o]);
  }
  for (const [k, list] of byCell) {  // cells to move to or place a unit on, above the units (a fallen one may lie there)
    const [x, y] = list[0].cell, o = list[0];
    const text = list.map((c) => c.label).join("; ");
    const r = el("rect", { x: x * CELL + 2, y: y * CELL + 2, width: CELL - 4, height: CELL - 4, rx: 6,
      class: `reach kind-${String(o.option[0]).replace(/[^\w-]/g, "")}`, tabindex: 0, role: "button", "aria-label": text,
      "data-option": o.i, "data-cell": k }, svg);
    el("title", {}, r).textContent = text;
    activate(r, () => (list.length > 1 && opts.onCell ? opts.onCell(k, list) : opts.onOption && opts.onOption(o.i)));
  }
  drawTray(svg, b, off, pending, opts);
  return off;  // units this view may not place on the board (not on the table, or hidden): the caller lists them
}

const TRAY_GAP = 12;

// Whether a unit stands on a cell of the board in this view: on the table (the server's
// ``off_table``, e.g. not yet deployed) and with a position the view may see.
export function placed(u) {
  return !u.off_table && typeof u.x === "number" && typeof u.y === "number";
}

export function offTable(state) {
  return Object.values(state.units || {}).filter((u) => !u.removed && !u.dead && !placed(u));
}

function nameOf(u) { return isHidden(u.name) ? "(unknown)" : u.name; }

// The tray under the board: a marker for each unit the view knows of but cannot place on a cell
// (not yet deployed: in its side's colour; its position hidden: a "?" marker), the one the
// pending decision is about outlined.
function drawTray(svg, b, off, pending, opts) {
  if (!off.length) return;
  const top = b.height * CELL + TRAY_GAP;
  const tray = el("g", { class: "tray", "aria-label": "units off the table" }, svg);
  el("rect", { x: 0, y: top - TRAY_GAP / 2, width: b.width * CELL, height: Math.ceil(off.length / b.width) * CELL + TRAY_GAP / 2,
    class: "tray-bg" }, tray);
  off.forEach((u, i) => {
    const x = (i % b.width) * CELL, y = top + Math.floor(i / b.width) * CELL;
    const hidden = isHidden(u.x) || isHidden(u.y);
    const why = hidden ? "position hidden" : "not on the table";
    const cls = ["offboard", `side-${u.side}`, hidden ? "marker" : "reserve"];
    if (pending && pending.unit === u.id) cls.push("deciding");
    const g = el("g", { class: cls.join(" "), tabindex: 0, role: "button", "data-unit": u.id,
      "aria-label": `${u.id} ${nameOf(u)}, side ${u.side}, ${why}` }, tray);
    el("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, rx: hidden ? 2 : 10 }, g);
    const t = el("text", { x: x + CELL / 2, y: y + CELL / 2 + 4, "text-anchor": "middle" }, g);
    t.textContent = hidden ? "?" : (u.id.length <= 3 ? u.id : u.id.slice(0, 3));
    el("title", {}, g).textContent = `${u.id} ${nameOf(u)} (side ${u.side}): ${why}`;
    activate(g, () => opts.onUnit && opts.onUnit(u.id, []));
  });
}

function activate(node, fn) {
  node.addEventListener("click", fn);
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fn(); }
  });
}

function star(cx, cy, r1, r2) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? r2 : r1, a = Math.PI / 5 * i - Math.PI / 2;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

// The legend of the terrain present on this board.
export function legend(container, state, names) {
  container.replaceChildren();
  const present = new Set(state.board.cells);
  for (const [ch, name] of Object.entries(names || {})) {
    if (!present.has(ch)) continue;
    const item = document.createElement("span");
    item.className = "legend-item";
    const sw = document.createElement("i");
    sw.className = `swatch t-${TERRAIN_CLASS[ch] || "other"}`;
    item.append(sw, document.createTextNode(name));
    container.appendChild(item);
  }
}

// A small map of a mission for the lobby: terrain, deployment, objectives.
export function miniMap(mission) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${mission.width * 8} ${mission.height * 8}`);
  svg.setAttribute("class", "minimap");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `map of ${mission.name}, ${mission.width} by ${mission.height}`);
  for (let y = 0; y < mission.height; y++) {
    for (let x = 0; x < mission.width; x++) {
      el("rect", { x: x * 8, y: y * 8, width: 8, height: 8,
        class: `cell t-${TERRAIN_CLASS[mission.cells[y * mission.width + x]] || "other"}` }, svg);
    }
  }
  for (const u of mission.deploy || []) el("circle", { cx: u.x * 8 + 4, cy: u.y * 8 + 4, r: 3, class: `dot side-${u.side}` }, svg);
  return svg;
}

// The profile of a unit: every field, generically (hidden values said as such).
export function profile(container, u) {
  container.replaceChildren();
  if (!u) return;
  const h = document.createElement("h3");
  h.textContent = `${u.id} — ${nameOf(u)} (side ${u.side})`;
  const dl = document.createElement("dl");
  const add = (k, v) => {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v;
    dl.append(dt, dd);
  };
  add("states", unitStates(u).join(", ") || "ready to fight");
  add("stress", `${u.stress} / ${u.stress_max}`);
  add("resistance", u.resistance);
  if (u.stats) add("stats", Object.entries(u.stats).map(([k, v]) => `${k} ${v}`).join(", "));
  (u.weapons || []).forEach((w, i) => add(`weapon ${i}${(u.stowed || []).includes(i) ? " (stowed)" : ""}`,
    `${w.name}: ${w.kind}, damage ${w.damage}${w.qualities && w.qualities.length ? ", " + w.qualities.join(", ") : ""}`));
  const skip = new Set(["id", "name", "side", "stats", "weapons", "stress", "stress_max", "resistance", "stowed", "off_table", "shown"]);
  if (u.off_table) add("where", "not on the table");
  if (u.shown && u.shown.length) add("rules", u.shown.join(" · "));  // the modules' own words (the text client's flags)
  for (const [k, v] of Object.entries(u)) {
    if (skip.has(k) || v === false || v === "" || v === 0 || v === null || (Array.isArray(v) && !v.length)) continue;
    add(k.replace(/_/g, " "), show(v));
  }
  container.append(h, dl);
}

export function show(v) {
  if (isHidden(v)) return "(hidden)";
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.map(show).join(", ");
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${k}: ${show(x)}`).join("; ");
  return String(v);
}
