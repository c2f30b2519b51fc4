// The payout addresses in force of a merchant's mode, kept in memory for pricing. A live payment of
// a direct-settlement merchant is priced on its coin's settlement route, which depends on those
// addresses, so each creation used to read them: one more round trip on the hottest write of the
// service, which test mode (never converted) does not pay. An address's own times (active_at) are
// compared with the clock when used, so a kept list stays right until the list itself changes:
// this process forgets a merchant's list at every change it makes (before and after its commit; a
// read that began before the change is not kept), and a change made by another process is seen
// within TTL_MS. Settlement itself never uses this: it reads the addresses in its transaction.
import type { PayoutAddressInput } from './types.ts';

export const PAYOUT_ADDRESS_TTL_MS = 2_000;
/** Merchants kept at most (the oldest entry goes first). */
const MAX_ENTRIES = 10_000;

interface Entry { at: number; addresses: PayoutAddressInput[] }

export class PayoutAddressCache {
  readonly #entries = new Map<string, Entry>();
  /** Changes seen per merchant: a read that saw another count is not kept. */
  readonly #changes = new Map<string, number>();
  readonly #ttlMs: number;

  constructor(ttlMs = PAYOUT_ADDRESS_TTL_MS) {
    this.#ttlMs = ttlMs;
  }

  async get(merchantId: string, livemode: boolean, load: () => Promise<PayoutAddressInput[]>): Promise<PayoutAddressInput[]> {
    const key = `${merchantId}|${livemode}`;
    const now = performance.now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.#ttlMs) return hit.addresses;
    const seen = this.#changes.get(merchantId) ?? 0;
    const addresses = await load();
    if ((this.#changes.get(merchantId) ?? 0) === seen) {
      this.#entries.delete(key);
      this.#entries.set(key, { at: now, addresses });
      if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    }
    return addresses;
  }

  /** The merchant's addresses changed (or are about to): read them again next time. */
  forget(merchantId: string): void {
    this.#changes.set(merchantId, (this.#changes.get(merchantId) ?? 0) + 1);
    this.#entries.delete(`${merchantId}|true`);
    this.#entries.delete(`${merchantId}|false`);
  }
}
