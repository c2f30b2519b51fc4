// The last, non-hardened BIP-32 step (CKDpriv) of a deposit address, done with libsecp256k1
// (tiny-secp256k1, WASM) instead of @scure/bip32's pure-JS curve: the one multiplication by G is
// about 4× faster there, and it gives the uncompressed key EVM and Tron need without a square root.
// The hardened account levels above stay with @scure/bip32 and are cached; child-key.test.ts checks
// that every child here equals @scure/bip32's deriveChild.
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import * as ecc from 'tiny-secp256k1';
import type { HDKey } from '@scure/bip32';

export interface ChildKey {
  privateKey: Uint8Array;
  /** 33 bytes, compressed (SEC1). */
  publicKey: Uint8Array;
  /** 65 bytes, uncompressed: what Ethereum, BNB Smart Chain and Tron hash. */
  uncompressedPublicKey: Uint8Array;
}

type Hmac = ReturnType<typeof hmac.create>;

/**
 * HMAC-SHA512 keyed with a parent's chain code, its key blocks already hashed: every child of a
 * branch uses the same key, and cloning the keyed state halves the SHA-512 work of each child.
 */
const keyedByParent = new WeakMap<HDKey, Hmac>();

function keyedHmac(parent: HDKey, chainCode: Uint8Array): Hmac {
  let keyed = keyedByParent.get(parent);
  if (!keyed) {
    keyed = hmac.create(sha512, chainCode);
    keyedByParent.set(parent, keyed);
  }
  return keyed;
}

/** Child `index` (0 … 2^31-1, non-hardened) of a private extended key. */
export function deriveChildKey(parent: HDKey, index: number): ChildKey {
  const parentPrivate = parent.privateKey;
  const parentPublic = parent.publicKey;
  const chainCode = parent.chainCode;
  if (!parentPrivate || !parentPublic || !chainCode) throw new Error('a private extended key is required');
  const data = new Uint8Array(37);
  data.set(parentPublic, 0);
  new DataView(data.buffer).setUint32(33, index, false);
  const tweak = keyedHmac(parent, chainCode).clone().update(data).digest().subarray(0, 32);
  // BIP-32: an IL ≥ n or a zero child key makes the index invalid (odds about 2^-127); refused
  // rather than skipped, as @scure/bip32 does.
  const privateKey = ecc.isPrivate(tweak) ? ecc.privateAdd(parentPrivate, tweak) : null;
  const uncompressed = privateKey && ecc.pointFromScalar(privateKey, false);
  if (!privateKey || !uncompressed) throw new Error(`BIP-32 child ${index} is invalid: use another index`);
  const publicKey = new Uint8Array(33);
  publicKey[0] = 0x02 | (uncompressed[64] & 1);
  publicKey.set(uncompressed.subarray(1, 33), 1);
  return { privateKey, publicKey, uncompressedPublicKey: uncompressed };
}
