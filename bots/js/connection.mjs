// One WebSocket connection to a skirmish server, in either codec (docs/protocol.md, "Transport"):
// `call` sends a request and resolves with the reply carrying its id; `next` gives the pushes
// (event, decision, game_over, live, updates) in order. Every frame is checked against the schema
// both ways (schema.mjs); a frame that does not validate closes the connection with the error.
import WebSocket from "ws";
import { decode, encode } from "@msgpack/msgpack";

import { jsonModel } from "./schema.mjs";

export const SUBPROTOCOLS = { msgpack: "skirmish.v1.msgpack", json: "skirmish.v1.json" };
export const PROTOCOL_VERSION = 1;

export class ServerError extends Error {
  constructor(reply) {
    super(`${reply.code}: ${reply.message}`);
    this.code = reply.code;
  }
}

export class Connection {
  // Open a connection to `url` speaking `codec` ("msgpack" or "json") and say hello.
  static async open(url, { codec = "msgpack", schema, name = "js-bot", batch = false }) {
    const conn = new Connection(url, codec, schema);
    await new Promise((resolve, reject) => {
      conn.ws.once("open", resolve);
      conn.ws.once("error", reject);
    });
    if (conn.ws.protocol !== SUBPROTOCOLS[codec]) throw new Error(`the server did not accept ${SUBPROTOCOLS[codec]}`);
    const welcome = await conn.call({ type: "hello", protocol: PROTOCOL_VERSION, client: name, batch });
    if (welcome.type !== "welcome" || welcome.protocol !== PROTOCOL_VERSION) {
      throw new Error(`the server speaks protocol ${welcome.protocol}, this bot ${PROTOCOL_VERSION}`);
    }
    conn.server = welcome.server;
    return conn;
  }

  constructor(url, codec, schema) {
    if (!(codec in SUBPROTOCOLS)) throw new Error(`codec is msgpack or json, not ${codec}`);
    this.codec = codec;
    this.schema = schema;
    this.nextId = 1;
    this.calls = new Map(); // id -> {resolve, reject}
    this.pushes = []; // messages nobody called for, in order
    this.waiting = null; // the `next` waiting for a push
    this.failure = null; // why the connection is unusable
    this.ws = new WebSocket(url, [SUBPROTOCOLS[codec]], { maxPayload: 16 * 2 ** 20 });
    this.ws.on("message", (data, isBinary) => this.received(data, isBinary));
    this.ws.on("close", (code, reason) => this.fail(new Error(`connection closed (${code} ${reason})`)));
    this.ws.on("error", (err) => this.fail(err));
  }

  received(data, isBinary) {
    let msg;
    try {
      if (isBinary !== (this.codec === "msgpack")) throw new Error(`a ${isBinary ? "binary" : "text"} frame on ${this.codec}`);
      msg = this.codec === "json" ? JSON.parse(data.toString("utf8")) : jsonModel(decode(data));
      this.schema.checkReceived(msg);
    } catch (err) {
      this.fail(err);
      this.ws.close(1002, "invalid frame");
      return;
    }
    // a reply carries its request's id; with `batch`, a command's `ack` comes inside the `updates`
    // of its step, which is also a push
    const reply = msg.type === "updates" ? msg.ack : msg;
    const call = reply && reply.id ? this.calls.get(reply.id) : undefined;
    if (call) {
      this.calls.delete(reply.id);
      call.resolve(reply);
      if (reply === msg) return;
    }
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve(msg);
    } else {
      this.pushes.push(msg);
    }
  }

  fail(err) {
    if (this.failure) return;
    this.failure = err;
    for (const { reject } of this.calls.values()) reject(err);
    this.calls.clear();
    if (this.waiting) this.waiting.reject(err);
    this.waiting = null;
  }

  send(message) {
    if (this.failure) throw this.failure;
    this.schema.checkSent(message);
    this.ws.send(this.codec === "json" ? JSON.stringify(message) : encode(message));
  }

  // Send `message` with a fresh id; the reply with that id (an `error` reply included).
  call(message) {
    const msg = { ...message, id: this.nextId++ };
    return new Promise((resolve, reject) => {
      this.calls.set(msg.id, { resolve, reject });
      try {
        this.send(msg);
      } catch (err) {
        this.calls.delete(msg.id);
        reject(err);
      }
    });
  }

  // The next push (or unmatched reply, such as an `error` with id 0).
  next() {
    if (this.pushes.length) return Promise.resolve(this.pushes.shift());
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => { this.waiting = { resolve, reject }; });
  }

  close() {
    this.failure = this.failure || new Error("closed");
    this.ws.close(1000);
  }
}
