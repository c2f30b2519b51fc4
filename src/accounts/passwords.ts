// Passwords: scrypt with a per-user random salt, at OWASP's current cost (N=2^17, r=8, p=1: 128 MiB
// and a few hundred milliseconds a hash). The parameters are stored with each hash, so a hash made
// at a lower cost still verifies, and is made again at the current cost at the next successful
// sign-in (needsRehash). Verifying an unknown email still runs scrypt on a dummy hash at the
// current cost, so sign-in time does not tell whether an email exists.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const KEYLEN = 32;

export interface ScryptCost { N: number; r: number; p: number }

/** OWASP Password Storage Cheat Sheet: scrypt N=2^17 (128 MiB), r=8, p=1. */
export const OWASP_SCRYPT: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };
/** The cost hashes were made at before; still verified, upgraded at the next sign-in. */
export const LEGACY_SCRYPT: ScryptCost = { N: 2 ** 14, r: 8, p: 1 };

let cost: ScryptCost = OWASP_SCRYPT;

/** scrypt needs about 128·N·r bytes; Node refuses above `maxmem`, so allow twice that (a stored hash's own cost). */
const maxmem = (c: ScryptCost): number => 256 * c.N * c.r;

/**
 * The cost new hashes are made at (PASSWORD_SCRYPT_N; production keeps OWASP's, tests lower it to
 * stay fast). Process-wide: every hash of the process is made at one cost.
 */
export function setPasswordCost(N: number): void {
  if (N === cost.N) return;
  cost = { ...OWASP_SCRYPT, N };
  dummy = null;
}

export const passwordCost = (): ScryptCost => cost;

export const MIN_PASSWORD_LENGTH = 8;

export async function hashPassword(password: string, c: ScryptCost = cost): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, KEYLEN, { ...c, maxmem: maxmem(c) });
  return `scrypt$${c.N}$${c.r}$${c.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A stored hash read once (sign-in verifies it and then asks whether to make it again). */
export interface StoredHash {
  cost: ScryptCost;
  salt: Buffer;
  key: Buffer;
}

/** The parts of a stored hash; null when it is not a scrypt hash of ours. */
export function readHash(stored: string): StoredHash | null {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  const c = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || ![c.N, c.r, c.p].every((v) => Number.isSafeInteger(v) && v > 0)) return null;
  // a hash of ours never asks for more than 1 GiB (a corrupted row must not exhaust memory)
  if (128 * c.N * c.r > 2 ** 30) return null;
  return { cost: c, salt: Buffer.from(saltB64 ?? '', 'base64'), key: Buffer.from(keyB64 ?? '', 'base64') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  return verifyHash(password, readHash(stored));
}

/** verifyPassword over a hash already read. */
export async function verifyHash(password: string, h: StoredHash | null): Promise<boolean> {
  if (!h || h.key.length === 0) return false;
  const key = await scrypt(password, h.salt, h.key.length, { ...h.cost, maxmem: maxmem(h.cost) });
  return crypto.timingSafeEqual(key, h.key);
}

/** Whether a stored hash was made at a lower cost than the current one (made again at sign-in). */
export function needsRehash(h: StoredHash | null): boolean {
  return h === null || h.cost.N < cost.N || h.cost.r < cost.r || h.cost.p < cost.p;
}

let dummy: Promise<StoredHash | null> | null = null;
/** Burns the same time as a real check when there is no user to check against. */
export async function verifyAgainstNobody(password: string): Promise<false> {
  dummy ??= hashPassword('no-such-user-password').then(readHash);
  await verifyHash(password, await dummy);
  return false;
}
