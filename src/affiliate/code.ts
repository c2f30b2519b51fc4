// Referral codes: 8 characters of A-Z0-9, drawn at random (CONTRACT.md "Referral program").
import crypto from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const CODE_LENGTH = 8;

export function newReferralCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[crypto.randomInt(ALPHABET.length)];
  return code;
}

/** A code as given (any case, surrounding spaces): its stored form, or null when it cannot be one. */
export function normalizeCode(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const code = v.trim().toUpperCase();
  return /^[A-Z0-9]{8}$/.test(code) ? code : null;
}
