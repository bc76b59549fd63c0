// node --test test/: the schema checks frames both ways, the strategy picks what it says it picks.
import assert from "node:assert/strict";
import { test } from "node:test";

import { encode, decode } from "@msgpack/msgpack";

import { InvalidFrame, Schema, jsonModel } from "../schema.mjs";
import { View, choose, generator, score } from "../strategy.mjs";

const schema = new Schema();
const hidden = (what) => ({ type: "Hidden", what });

test("the schema knows every message of both directions", () => {
  assert.deepEqual(schema.tags("ClientMessage").sort(),
    ["cancel", "command", "create_game", "hello", "join", "list_games", "list_missions", "offer_draw", "ping",
      "replay_frames", "resign", "resume", "spectate"]);
  assert.ok(schema.tags("ServerMessage").includes("updates"));
  assert.ok(schema.tags("Event").includes("DiceRolled") && schema.tags("Event").length > 100);
});

test("outgoing frames that break the protocol are refused before they are sent", () => {
  schema.checkSent({ type: "join", game_id: "g-1", seat: "b", client_seed: "0123abcd", id: 2 });
  schema.checkSent({ type: "command", game_id: "g-1", decision_id: 3, option: ["move", 3, 4], command_id: "c", id: 3 });
  for (const bad of [
    { type: "join", game_id: "g-1", client_seed: "a:b" }, // ':' is not allowed in a client seed
    { type: "command", game_id: "g-1", decision_id: 3, option: ["card", hidden("card")] }, // never sendable
    { type: "command", game_id: "g-1", decision_id: 3, option: ["move", 1.5] },
    { type: "hello", protocol: 1, client: "bell\u0007" },
    { type: "teleport" },
  ]) assert.throws(() => schema.checkSent(bad), InvalidFrame, JSON.stringify(bad));
});

test("incoming frames are checked, Hidden parts where the types admit them", () => {
  const moved = { type: "event", game_id: "g", seq: 9, event: { type: "UnitMoved", unit: "b1", x: hidden("position"), y: 2 } };
  schema.checkReceived(moved);
  schema.checkReceived(jsonModel(decode(encode(moved)))); // the same through MessagePack
  assert.throws(() => schema.checkReceived({ ...moved, event: { ...moved.event, unit: hidden("unit") } }), /\/event\/unit/);
  assert.throws(() => schema.checkReceived({ type: "ack", game_id: "g" }), /seq/);
  assert.equal(jsonModel({ b: new Uint8Array([0, 255]) }).b, "AP8=");
});

function ridgeView() {
  const view = new View("a");
  const unit = (id, side, x, y, stress = 10) => ({ id, side, x, y, stress, stress_max: 10, dead: false, injury: "" });
  view.apply({ type: "GameCreated", units: [unit("a1", "a", 0, 0), unit("b1", "b", 6, 6), unit("b2", "b", 9, 0, 2)],
               objectives: [] });
  return view;
}

test("greedy attacks first, the most worn target, lethal; else closes in; else takes what costs nothing", () => {
  const view = ridgeView();
  const act = { id: 4, side: "a", kind: "act", unit: "a1",
                options: [["end"], ["move", 1, 1], ["attack", "b1", 0, 1], ["attack", "b2", 0, 0], ["attack", "b2", 0, 1]] };
  assert.deepEqual(choose(view, act), ["attack", "b2", 0, 1]);
  const moves = { ...act, options: [["end"], ["move", 1, 0], ["move", 1, 1], ["move", 0, 1]] };
  assert.deepEqual(choose(view, moves), ["move", 1, 1]);
  view.apply({ type: "UnitMoved", unit: "b1", x: hidden("position"), y: hidden("position") }); // lost sight of it
  view.apply({ type: "UnitDied", unit: "b2", reason: "" });
  assert.equal(view.goals().length, 0);
  assert.deepEqual(choose(view, { id: 5, side: "a", kind: "buy_dice", unit: "a1", options: [["buy", 0], ["buy", 2, "threat"]] }),
                   ["buy", 0]);
  assert.ok(score(view, ["avoid", "momentum"], {}) > score(view, ["accept"], {}));
});

test("choices come from the decision, never a Hidden one, and a seed repeats them", () => {
  const d = { id: 1, side: "a", kind: "prerogative", unit: "", options: [["accept"], ["card", hidden("card")], ["fate", 1]] };
  const picks = (seed) => {
    const random = generator(seed);
    return Array.from({ length: 40 }, () => choose(new View("a"), d, { strategy: "random", random }));
  };
  assert.deepEqual(new Set(picks(7)), new Set([d.options[0], d.options[2]]));
  assert.deepEqual(picks(7), picks(7));
  assert.notDeepEqual(picks(7), picks(8));
});
