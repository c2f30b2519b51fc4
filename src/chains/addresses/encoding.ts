// Byte-level address encodings: hash160, base58check (Bitcoin and XRP alphabets), segwit bech32,
// keccak account ids and the EIP-55 checksum. Each decoder returns undefined rather than throwing,
// so validation reads as a chain of checks.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { base58check, base58xrp, bech32, bech32m, hex } from '@scure/base';

export const hash160 = (bytes: Uint8Array): Uint8Array => ripemd160(sha256(bytes));

const b58check = base58check(sha256);

export function encodeBase58Check(version: number, payload: Uint8Array): string {
  return b58check.encode(concat([version], payload));
}

/** The version byte and payload of a base58check string, or undefined (bad alphabet, checksum, length). */
export function decodeBase58Check(text: string, payloadLength = 20): { version: number; payload: Uint8Array } | undefined {
  let bytes: Uint8Array;
  try {
    bytes = b58check.decode(text);
  } catch {
    return undefined;
  }
  if (bytes.length !== payloadLength + 1) return undefined;
  return { version: bytes[0], payload: bytes.subarray(1) };
}

// XRP uses base58check too, but over its own alphabet (so account zero is rrrr…): done by hand here
// because @scure's base58check is tied to Bitcoin's alphabet.
const xrpChecksum = (data: Uint8Array): Uint8Array => sha256(sha256(data)).subarray(0, 4);

export function encodeXrpBase58Check(version: number, payload: Uint8Array): string {
  const data = concat([version], payload);
  return base58xrp.encode(concat(data, xrpChecksum(data)));
}

export function decodeXrpBase58Check(text: string, payloadLength = 20): { version: number; payload: Uint8Array } | undefined {
  let bytes: Uint8Array;
  try {
    bytes = base58xrp.decode(text);
  } catch {
    return undefined;
  }
  if (bytes.length !== payloadLength + 5) return undefined;
  const data = bytes.subarray(0, -4);
  if (!equalBytes(xrpChecksum(data), bytes.subarray(-4))) return undefined;
  return { version: data[0], payload: data.subarray(1) };
}

/** Native segwit address of a witness program (version 0 → bech32, 1 and up → bech32m, BIP-350). */
export function encodeSegwit(hrp: string, version: number, program: Uint8Array): string {
  const words = [version, ...bech32.toWords(program)];
  return version === 0 ? bech32.encode(hrp, words) : bech32m.encode(hrp, words);
}

/**
 * Witness version and program of a segwit address with the given prefix, or undefined. Checks the
 * checksum variant against the version (BIP-350) and refuses mixed case (BIP-173).
 */
export function decodeSegwit(text: string, hrp: string): { version: number; program: Uint8Array } | undefined {
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return undefined;
  const lower = text.toLowerCase();
  for (const codec of [bech32, bech32m]) {
    const decoded = codec.decodeUnsafe(lower, 90);
    if (!decoded || decoded.prefix !== hrp || decoded.words.length < 1) continue;
    const version = decoded.words[0];
    if ((version === 0) !== (codec === bech32)) return undefined;
    const program = bech32.fromWordsUnsafe(decoded.words.slice(1));
    if (!program) return undefined;
    return { version, program };
  }
  return undefined;
}

/**
 * A witness program of version 1 to 16 in the shape BIP-141 allows (2 to 40 bytes): taproot (v1, 32
 * bytes) and the future soft forks' outputs BIP-350 asks senders to pay. The one rule the payout
 * address check, the script built for it and the signer letting that script through all follow.
 */
export function isVersionedWitnessProgram(version: number, length: number): boolean {
  return version >= 1 && version <= 16 && length >= 2 && length <= 40;
}

/**
 * The 20-byte account id shared by Ethereum, BNB Smart Chain and Tron: keccak of the uncompressed key.
 * Takes a compressed (33) or uncompressed (65 bytes) key; the latter saves decompressing.
 */
export function keccakAccountId(publicKey: Uint8Array): Uint8Array {
  const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/** EIP-55 mixed-case checksum form of a 20-byte account id. */
export function toChecksumAddress(accountId: Uint8Array): string {
  const lower = hex.encode(accountId);
  const digest = hex.encode(keccak_256(new TextEncoder().encode(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    out += parseInt(digest[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return out;
}

export function concat(a: ArrayLike<number>, b: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
