#!/usr/bin/env node
// A skirmish starter bot in JavaScript: connects to a server over WebSocket (MessagePack or JSON),
// creates or joins a game, answers each decision of its seat, and prints a summary at the end.
// Every frame it sends and receives is validated against the protocol's JSON Schema.
//
//   node bot.mjs --server ws://127.0.0.1:8765 --create ridge            # create a game, wait for an opponent
//   node bot.mjs --server ws://127.0.0.1:8765 --game GAME_ID --seat b   # join one
//
// docs/bots.md, "A bot in JavaScript", walks through it.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import { Connection, ServerError } from "./connection.mjs";
import { DEFAULT_SCHEMA, Schema } from "./schema.mjs";
import { View, choose, generator } from "./strategy.mjs";

const USAGE = `usage: node bot.mjs --server URL (--create MISSION [--games N] | --game ID) [options]
  --seat a|b|any          the seat to take (default: any)
  --strategy greedy|random  how to pick among the options (default: greedy)
  --codec msgpack|json    wire codec (default: msgpack)
  --seed N                the generator's seed (same seed, same game: same choices)
  --client-seed TEXT      the seat's client seed, mixed into every die roll (default: a random one)
  --name NAME             the player name the server records (default: js-<strategy>)
  --schema PATH           the protocol's JSON Schema (default: docs/schema/skirmish.schema.json)
  --batch                 ask for one 'updates' frame per server step`;

const OPTIONS = {
  server: { type: "string" }, create: { type: "string" }, game: { type: "string" }, games: { type: "string", default: "1" },
  seat: { type: "string", default: "any" }, strategy: { type: "string", default: "greedy" },
  codec: { type: "string", default: "msgpack" }, seed: { type: "string" }, "client-seed": { type: "string" },
  name: { type: "string" }, schema: { type: "string", default: DEFAULT_SCHEMA }, batch: { type: "boolean", default: false },
  help: { type: "boolean", default: false },
};

const token = () => randomBytes(16).toString("hex"); // request ids, command ids, client seeds

// The pushes one message carries: an `updates` unpacked into its parts, in their order.
function unpack(msg) {
  if (msg.type !== "updates") return [msg];
  const parts = (msg.events || []).map((item) => ({ type: "event", game_id: msg.game_id, seq: item.seq, event: item.event }));
  for (const part of [msg.decision, msg.game_over, msg.ack]) if (part) parts.push(part);
  return parts;
}

// Send the command answering `decision`; resend it (same command id: safe) while rate-limited.
async function answer(conn, gameId, decision, option) {
  const command = { type: "command", game_id: gameId, decision_id: decision.id, option, command_id: token() };
  for (;;) {
    const reply = await conn.call(command);
    if (reply.type === "ack") return true;
    if (reply.code === "protocol.rate_limited") {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    if (reply.code === "game.stale_decision" || reply.code === "game.over") return false; // the clock or the game moved on
    throw new ServerError(reply);
  }
}

// Play one game to its end: create one of `mission` or join `gameId`; the game's summary.
async function playGame(conn, { mission, gameId, seat, clientSeed, strategy, random }) {
  const request = mission
    ? { type: "create_game", mission, seat, client_seed: clientSeed, request_id: token() }
    : { type: "join", game_id: gameId, seat, client_seed: clientSeed, request_id: token() };
  const seated = await conn.call(request);
  if (seated.type !== "seated") throw new ServerError(seated);
  console.log(`seated: game ${seated.game_id}, seat ${seated.seat}`);
  const view = new View(seated.seat);
  let answered = 0;
  let decisions = 0;
  for (;;) {
    const msg = await conn.next();
    if (msg.type === "error") throw new ServerError(msg); // an error the server sent on its own
    for (const push of unpack(msg)) {
      if (push.game_id !== seated.game_id) continue;
      if (push.type === "event") view.apply(push.event);
      if (push.type === "game_over") {
        const { winner, reason, points } = push.outcome;
        return { game_id: seated.game_id, seat: seated.seat, winner, reason, points, head_hash: push.head_hash, decisions };
      }
      const d = push.type === "decision" ? push.decision : null;
      if (d && d.side === seated.seat && d.id > answered) {
        answered = d.id;
        if (await answer(conn, seated.game_id, d, choose(view, d, { strategy, random }))) decisions += 1;
      }
    }
  }
}

async function main() {
  let args;
  try {
    ({ values: args } = parseArgs({ options: OPTIONS }));
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    return 2;
  }
  const games = Number(args.games);
  const bad = args.help ? "" : !args.server ? "--server is required"
    : !args.create === !args.game ? "give --create MISSION or --game ID"
    : !["a", "b", "any"].includes(args.seat) ? "--seat is a, b or any"
    : !["greedy", "random"].includes(args.strategy) ? "--strategy is greedy or random"
    : !(Number.isInteger(games) && games >= 1) || (args.game && games !== 1) ? "--games is a count >= 1, with --create only"
    : null;
  if (bad !== null) {
    (bad ? console.error : console.log)(bad ? `${bad}\n${USAGE}` : USAGE);
    return bad ? 2 : 0;
  }
  const schema = new Schema(args.schema);
  const random = generator(args.seed !== undefined ? Number(args.seed) : randomBytes(4).readUInt32LE());
  const conn = await Connection.open(args.server, { codec: args.codec, schema, batch: args.batch,
                                                    name: args.name || `js-${args.strategy}` });
  const results = [];
  try {
    for (let n = 0; n < games; n++) {
      const clientSeed = args["client-seed"] ?? token();
      results.push(await playGame(conn, { mission: args.create, gameId: args.game, seat: args.seat, clientSeed,
                                          strategy: args.strategy, random }));
      const r = results.at(-1);
      console.log(`game over: ${r.winner ? `side ${r.winner} wins` : "a draw"} (${r.reason}); head ${r.head_hash}`);
    }
  } finally {
    conn.close();
  }
  const won = results.filter((r) => r.winner === r.seat).length;
  const drawn = results.filter((r) => !r.winner).length;
  console.log(`summary: ${JSON.stringify({ games: results, won, drawn, lost: results.length - won - drawn,
                                           frames_validated: schema.checked })}`);
  return 0;
}

main().then((code) => { process.exitCode = code; }, (err) => {
  console.error(`js bot: ${err.message}`);
  process.exitCode = 1;
});
