// The index of one chain's watched addresses, kept in step with the payments table: rebuilt page by
// page when the watcher takes the chain, then topped up before each batch of blocks is matched
// with the addresses given or changed since the last look (payments of every process, not only
// this one's). The look-back overlaps by OVERLAP_MS, so a payment whose transaction committed a
// little after the time it wrote is not missed; adding an address twice changes nothing.
import type { Chain } from '../../config.ts';
import type { Database } from '../../platform/db/index.ts';
import { watchedAddressPage, watchedAddressesSince, type WatchedAddressRow } from '../../payments/index.ts';
import { AddressIndex } from './address-index.ts';

const PAGE = 20_000;
export const OVERLAP_MS = 60_000;

export class WatchedAddresses {
  readonly #db: Database;
  readonly #chain: Chain;
  readonly #normalize: (address: string) => string;
  #index: AddressIndex | null = null;
  /** The newest updated_at seen: the next top-up reads from OVERLAP_MS before it. */
  #newest = new Date(0);

  constructor(db: Database, chain: Chain, normalize: (address: string) => string) {
    this.#db = db;
    this.#chain = chain;
    this.#normalize = normalize;
  }

  get ready(): boolean {
    return this.#index !== null;
  }

  get size(): number {
    return this.#index?.size ?? 0;
  }

  /** Forgets the index (the chain is watched by another process now); the next `current()` rebuilds it. */
  drop(): void {
    this.#index = null;
  }

  /** Builds the index from every live payment of the chain. */
  async rebuild(): Promise<void> {
    const index = new AddressIndex();
    let newest = new Date(0);
    let after = '';
    for (;;) {
      const rows = await watchedAddressPage(this.#db.orm, this.#chain, after, PAGE);
      for (const r of rows) newest = this.#add(index, r, newest);
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1].id;
    }
    this.#index = index;
    this.#newest = newest;
  }

  /** The index with every address given so far (rebuilt when there is none, else topped up). */
  async current(): Promise<AddressIndex> {
    if (!this.#index) {
      await this.rebuild();
      return this.#index!;
    }
    const index = this.#index;
    const rows = await watchedAddressesSince(this.#db.orm, this.#chain, new Date(this.#newest.getTime() - OVERLAP_MS));
    let newest = this.#newest;
    for (const r of rows) newest = this.#add(index, r, newest);
    this.#newest = newest;
    return index;
  }

  #add(index: AddressIndex, r: WatchedAddressRow, newest: Date): Date {
    index.add(this.#normalize(r.depositAddress), r.destinationTag ?? undefined);
    return r.updatedAt > newest ? r.updatedAt : newest;
  }
}
