// Verify a skirmish replay file in the browser, with the browser's own crypto (WebCrypto):
// the hash chain, the head hash, the seed commitment and every die, exactly as
// docs/replay-format.md specifies them. Nothing here trusts the server that sent the file.
"use strict";

// -- MessagePack (the subset the replay file and its events use, and a little more) -----------
export function unpack(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = new TextDecoder("utf-8", { fatal: true });
  let pos = 0;
  const need = (n) => { if (pos + n > bytes.length) throw new Error("truncated MessagePack"); };
  const str = (n) => { need(n); const s = text.decode(bytes.subarray(pos, pos + n)); pos += n; return s; };
  const bin = (n) => { need(n); const b = bytes.slice(pos, pos + n); pos += n; return b; };
  const arr = (n) => { const a = []; for (let i = 0; i < n; i++) a.push(read()); return a; };
  const map = (n) => {
    const o = {};
    for (let i = 0; i < n; i++) { const k = read(); o[k] = read(); }
    return o;
  };
  const u8 = () => { need(1); return bytes[pos++]; };
  const u16 = () => { need(2); const v = view.getUint16(pos); pos += 2; return v; };
  const u32 = () => { need(4); const v = view.getUint32(pos); pos += 4; return v; };
  const u64 = (signed) => {
    need(8); const v = signed ? view.getBigInt64(pos) : view.getBigUint64(pos); pos += 8;
    return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  };
  function read() {
    const t = u8();
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if ((t & 0xf0) === 0x80) return map(t & 0x0f);
    if ((t & 0xf0) === 0x90) return arr(t & 0x0f);
    if ((t & 0xe0) === 0xa0) return str(t & 0x1f);
    switch (t) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return bin(u8());
      case 0xc5: return bin(u16());
      case 0xc6: return bin(u32());
      case 0xca: { need(4); const v = view.getFloat32(pos); pos += 4; return v; }
      case 0xcb: { need(8); const v = view.getFloat64(pos); pos += 8; return v; }
      case 0xcc: return u8();
      case 0xcd: return u16();
      case 0xce: return u32();
      case 0xcf: return u64(false);
      case 0xd0: { need(1); const v = view.getInt8(pos); pos += 1; return v; }
      case 0xd1: { need(2); const v = view.getInt16(pos); pos += 2; return v; }
      case 0xd2: { need(4); const v = view.getInt32(pos); pos += 4; return v; }
      case 0xd3: return u64(true);
      case 0xd9: return str(u8());
      case 0xda: return str(u16());
      case 0xdb: return str(u32());
      case 0xdc: return arr(u16());
      case 0xdd: return arr(u32());
      case 0xde: return map(u16());
      case 0xdf: return map(u32());
      default: throw new Error(`MessagePack type 0x${t.toString(16)} is not used by replay files`);
    }
  }
  const value = read();
  if (pos !== bytes.length) throw new Error("trailing bytes after the MessagePack value");
  return value;
}

export const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s) => Uint8Array.from(s.match(/../g) || [], (h) => parseInt(h, 16));
const sha256 = async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", data));

// -- 1. the file ------------------------------------------------------------------------------
export function readReplayFile(bytes) {
  let raw;
  try { raw = unpack(bytes); } catch (e) { throw new Error(`not a skirmish replay file: ${e.message}`); }
  if (!Array.isArray(raw) || (raw.length !== 2 && raw.length !== 3)) throw new Error("not a skirmish replay file: not a [header, events, hashes] array");
  const [header, events, hashes] = raw;
  if (!header || header.format !== "skirmish-replay") throw new Error("not a skirmish replay file (format)");
  if (header.version > 2) throw new Error(`replay file version ${header.version} is newer than this page reads (2)`);
  if (!Array.isArray(events) || !events.every((e) => e instanceof Uint8Array)) throw new Error("not a skirmish replay file: events are not binary");
  if (header.version >= 2 && !(Array.isArray(hashes) && hashes.every((h) => h instanceof Uint8Array))) throw new Error("not a skirmish replay file: no hashes");
  return { header, events, hashes: raw.length === 3 ? hashes : null };
}

// -- 2. the chain -----------------------------------------------------------------------------
export async function chainHash(prev, gameId, seq, event) {
  const id = new TextEncoder().encode(gameId);
  const buf = new Uint8Array(32 + id.length + 1 + 8 + event.length);
  buf.set(prev, 0);
  buf.set(id, 32);
  buf[32 + id.length] = 0;
  new DataView(buf.buffer).setBigUint64(32 + id.length + 1, BigInt(seq));
  buf.set(event, 32 + id.length + 9);
  return sha256(buf);
}

// -- 5. the dice ------------------------------------------------------------------------------
export async function hmacKey(seedBytes) {
  return crypto.subtle.importKey("raw", seedBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export async function rollDice(key, clientSeeds, nonce, sides, count) {
  const w = sides <= 256 ? 1 : 2;
  const R = 256 ** w;
  const limit = R - (R % sides);
  const out = [];
  let cursor = 0, block = new Uint8Array(0), at = 0;
  while (out.length < count) {
    if (at + w > block.length) {  // the next 32-byte block (w divides 32: never split)
      const msg = new TextEncoder().encode(`${clientSeeds}:${nonce}:${cursor++}`);
      block = new Uint8Array(await crypto.subtle.sign("HMAC", key, msg));
      at = 0;
    }
    const x = w === 1 ? block[at] : (block[at] << 8) | block[at + 1];
    at += w;
    if (x < limit) out.push((x % sides) + 1);
  }
  return out;
}

export function combineSeeds(seeds) {
  return Object.keys(seeds).sort().map((seat) => `${seat}=${seeds[seat]}`).join(",");
}

// -- 6. all of it -----------------------------------------------------------------------------
// Returns {ok, events, rolls, checks: [..], bad: {seq, problem} | null}. onProgress(n, total).
export async function verifyReplay(bytes, { expectHead = "", onProgress = null } = {}) {
  const rf = readReplayFile(bytes);
  const { header, events } = rf;
  const checks = [];
  const fail = (seq, problem) => ({ ok: false, events: events.length, checks, bad: { seq, problem }, header });
  // the chain
  let prev = new Uint8Array(32);
  const gameId = String(header.game_id);
  for (let i = 0; i < events.length; i++) {
    const h = await chainHash(prev, gameId, i + 1, events[i]);
    if (rf.hashes && (i >= rf.hashes.length || hex(h) !== hex(rf.hashes[i]))) {
      return fail(i + 1, "the hash chain breaks here: this event's bytes, or the order of events, were changed");
    }
    prev = h;
    if (onProgress && i % 200 === 0) onProgress(i, events.length);
  }
  if (header.events !== events.length || (rf.hashes && rf.hashes.length !== events.length)) {
    return fail(Math.min(header.events, events.length) + 1, `the file holds ${events.length} events, its header says ${header.events}`);
  }
  if (hex(prev) !== String(header.head_hash)) {
    return fail(events.length, "the chain does not end at the header's head hash (an event was changed, added or removed)");
  }
  checks.push(`hash chain: ${events.length} events, head ${hex(prev).slice(0, 16)}…`);
  if (expectHead && expectHead !== hex(prev)) return fail(events.length, `the log ends at ${hex(prev)}, not at the announced head ${expectHead}`);
  // the events
  const decoded = [];
  for (let i = 0; i < events.length; i++) {
    let e;
    try { e = unpack(events[i]); } catch (err) { return fail(i + 1, `not an event: ${err.message}`); }
    if (!e || typeof e !== "object" || Array.isArray(e) || typeof e.type !== "string") return fail(i + 1, "not an event (a map with a type)");
    decoded.push(e);
  }
  const first = decoded[0];
  if (!first || first.type !== "GameCreated" || first.game_id !== gameId) return fail(1, "event 1 is not the GameCreated of this game");
  // the seed commitment and the dice
  const revealedAt = decoded.findIndex((e) => e.type === "SeedRevealed");
  if (first.dice !== "fair") {
    checks.push(`dice: "${first.dice}" (not provably fair: the rolls cannot be checked)`);
    return { ok: true, events: events.length, rolls: 0, checks, bad: null, header, decoded };
  }
  if (revealedAt < 0) {
    const ended = decoded.findIndex((e) => e.type === "GameEnded");
    if (ended >= 0) return fail(events.length, "the game ended but its server seed was never revealed");
    checks.push("seed: not revealed yet (the game is not over): the dice can be checked once it is");
    return { ok: true, events: events.length, rolls: 0, checks, bad: null, header, decoded };
  }
  const seedHex = String(decoded[revealedAt].server_seed || "");
  if (!/^[0-9a-f]{64}$/.test(seedHex)) return fail(revealedAt + 1, "the revealed server seed is not 64 hex digits");
  const seed = unhex(seedHex);
  if (hex(await sha256(seed)) !== first.commitment) return fail(revealedAt + 1, "the revealed server seed does not match the commitment logged at creation");
  checks.push(`seed commitment: sha256(server seed) = ${String(first.commitment).slice(0, 16)}… as committed in event 1`);
  const key = await hmacKey(seed);
  const seeds = {};
  let rolls = 0, rolled = false;
  for (let i = 0; i < decoded.length; i++) {
    const e = decoded[i];
    if (e.type === "ClientSeedAdded") {
      if (rolled) return fail(i + 1, "a client seed logged after a roll");
      if (e.seat in seeds) return fail(i + 1, `a second client seed for seat ${e.seat}`);
      seeds[e.seat] = e.seed;
    } else if (e.type === "DiceRolled") {
      rolled = true;
      const results = e.results || [];
      const want = await rollDice(key, combineSeeds(seeds), e.nonce, e.sides, results.length);
      if (want.join(",") !== results.join(",")) {
        return fail(i + 1, `roll nonce ${e.nonce} is [${results}], the seed gives [${want}]`);
      }
      rolls += 1;
    }
    if (onProgress && i % 200 === 0) onProgress(i, decoded.length);
  }
  checks.push(`dice: all ${rolls} rolls recomputed from the seed and the client seeds`);
  return { ok: true, events: events.length, rolls, checks, bad: null, header, decoded };
}
