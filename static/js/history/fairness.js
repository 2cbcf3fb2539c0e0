// The fairness algorithm `mixed-hmac-sha256/1` of docs/fairness.md, in the browser with
// Web Crypto: the commitment, the seed's derivation, the seed's byte stream, the uniform
// numbers, the canonical order and the Fisher–Yates shuffle. A port of games/fairness.py
// and games/shuffle.py, bit for bit (tests/e2e/test_history.py compares the two).
// crypto.subtle exists only in a secure context (https, or http://localhost / 127.0.0.1).

export const ALGORITHM = "mixed-hmac-sha256/1";

// The stock of a fresh shuffle per variant: deck kind and number of decks.
export const DECK_OF = {
  classic: ["standard52", 1],
  salon: ["standard52", 2],
  solo: ["russian36", 1],
  banker36: ["russian36", 1],
  blackjack: ["standard52", 6],
};

const SUITS = "SHDC";
const RANKS = { standard52: "23456789TJQKA", russian36: "6789TJQKA" };
const WORD = 2 ** 32;
const encoder = new TextEncoder();

export function available() {
  return Boolean(globalThis.crypto && globalThis.crypto.subtle);
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of a text (UTF-8), as raw bytes. */
export async function sha256(text) {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

export async function sha256Hex(text) {
  return hex(await sha256(text));
}

/** HMAC-SHA256 keyed by the key's text (UTF-8 bytes, not decoded from hex), hex. */
export async function hmacSha256Hex(keyText, message) {
  const key = await crypto.subtle.importKey(
    "raw", encoder.encode(keyText), { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

export function commitmentText(serverSeed, context) {
  return `${ALGORITHM}|table=${context.table}|shoe=${context.shoe}|variant=${context.variant}|server_seed=${serverSeed}`;
}

export function derivationText(context, clientSeeds, nonce) {
  const lines = [ALGORITHM, `table=${context.table}`, `shoe=${context.shoe}`, `variant=${context.variant}`, `nonce=${nonce}`];
  for (const entry of clientSeeds) lines.push(`client=${entry.seat}:${entry.seed}`);
  return lines.join("\n");
}

export async function commit(serverSeed, context) {
  return sha256Hex(commitmentText(serverSeed, context));
}

export async function derive(serverSeed, context, clientSeeds, nonce = 0) {
  return hmacSha256Hex(serverSeed, derivationText(context, clientSeeds, nonce));
}

/** Uniform integers from the stream SHA-256("SEED:LABEL:0") ‖ SHA-256("SEED:LABEL:1") ‖ …
 *  read as big-endian 32-bit words. */
export class SeedStream {
  constructor(seed, label) {
    this.prefix = `${seed}:${label}:`;
    this.block = 0;
    this.words = [];
  }

  async word() {
    if (!this.words.length) {
      const view = new DataView(await sha256(`${this.prefix}${this.block}`));
      this.block += 1;
      for (let offset = 0; offset < 32; offset += 4) this.words.push(view.getUint32(offset, false));
    }
    return this.words.shift();
  }

  /** A uniform integer in [0, m): a word u ≥ 2³² − (2³² mod m) is thrown away. */
  async below(m) {
    if (!(m > 0)) throw new RangeError("below() needs a positive bound");
    const limit = WORD - (WORD % m);
    for (;;) {
      const u = await this.word();
      if (u < limit) return u % m;
    }
  }
}

/** A card's place in the canonical order: suits S H D C, ranks 2 … A. */
export function canonicalIndex(card) {
  return SUITS.indexOf(card[1]) * 13 + RANKS.standard52.indexOf(card[0]);
}

export function canonicalOrder(cards) {
  return [...cards].sort((a, b) => canonicalIndex(a) - canonicalIndex(b));
}

/** A fresh stock in canonical order: `copies` decks, the copies of a card side by side. */
export function freshStock(kind, copies = 1) {
  const stock = [];
  for (const suit of SUITS) {
    for (const rank of RANKS[kind]) {
      for (let i = 0; i < copies; i += 1) stock.push(rank + suit);
    }
  }
  return stock;
}

/** The fresh stock of a variant's shuffle. */
export function variantStock(variant) {
  const [kind, copies] = DECK_OF[variant];
  return freshStock(kind, copies);
}

/** The order of shuffle number `shuffleNo` of these cards under `seed`: canonical order,
 *  then Fisher–Yates from the last position down. Position 0 is drawn first. */
export async function shuffled(cards, seed, shuffleNo) {
  const order = canonicalOrder(cards);
  const stream = new SeedStream(seed, String(shuffleNo));
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = await stream.below(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The first banker by lot: index (uniform below the number of seats) of stream "lot". */
export async function drawLot(seed, seats) {
  return seats[await new SeedStream(seed, "lot").below(seats.length)];
}

/** The server's cut when the cutter's time ran out (`salon`): 1 + uniform below
 *  (stock − 1) of stream "cut:N". */
export async function serverCut(seed, shuffleNo, count) {
  return 1 + (await new SeedStream(seed, `cut:${shuffleNo}`).below(count - 1));
}

/** The stock after a cut: its top `position` cards moved to the bottom. */
export function cut(order, position) {
  return [...order.slice(position), ...order.slice(0, position)];
}
