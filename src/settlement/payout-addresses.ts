// Which payout address of a coin direct settlement uses at a given moment (direct rules 1-3).
import type { TokenSymbol } from '../tokens/index.ts';
import type { PayoutAddressInput } from './types.ts';

/** Rule 3: a deposit waits for its coin's address at most this long after the deposit. */
export const AWAIT_ADDRESS_CAP_MS = 48 * 60 * 60 * 1000;

export type AddressState =
  | { state: 'in_use'; address: PayoutAddressInput }
  | { state: 'waiting'; address: PayoutAddressInput; until: Date }
  | { state: 'none' };

const byAge = (a: PayoutAddressInput, b: PayoutAddressInput): number =>
  a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The address a coin settles to: its default address (rule 1); with no default flagged (the
 * default was deleted), the oldest address of the coin. Not active yet → `waiting` until it is,
 * capped 48 h from the deposit; past that cap the coin is treated as having no address (rule 3).
 */
export function addressFor(token: TokenSymbol, addresses: readonly PayoutAddressInput[], now: Date, depositAt: Date): AddressState {
  const own = addresses.filter((a) => a.token === token).sort(byAge);
  const chosen = own.find((a) => a.default) ?? own[0];
  if (!chosen) return { state: 'none' };
  if (chosen.active_at.getTime() <= now.getTime()) return { state: 'in_use', address: chosen };
  const cap = depositAt.getTime() + AWAIT_ADDRESS_CAP_MS;
  if (now.getTime() >= cap) return { state: 'none' };
  return { state: 'waiting', address: chosen, until: new Date(Math.min(chosen.active_at.getTime(), cap)) };
}

/** Coins with an address in use now, oldest address first (the order `convert_into: order` needs). */
export function coinsInUse(addresses: readonly PayoutAddressInput[], now: Date): { token: TokenSymbol; address: PayoutAddressInput; oldest: Date }[] {
  const seen = new Map<TokenSymbol, Date>();
  for (const a of [...addresses].sort(byAge)) if (!seen.has(a.token)) seen.set(a.token, a.created_at);
  const out: { token: TokenSymbol; address: PayoutAddressInput; oldest: Date }[] = [];
  for (const [token, oldest] of seen) {
    const s = addressFor(token, addresses, now, now);
    if (s.state === 'in_use') out.push({ token, address: s.address, oldest });
  }
  return out;
}
