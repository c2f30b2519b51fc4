// The API-key cache (src/accounts/key-cache.ts) on a real database: grouped lookups, reads ahead of
// expiry that never make a request wait, the staleness bound for changes made by another process,
// and evictions that a read in flight cannot undo.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { ApiKeyCache, REFRESH_AHEAD_MS } from '../../src/accounts/key-cache.ts';
import { hashSecret, insertApiKey } from '../../src/accounts/api-keys.ts';
import { apiKeys, merchants } from '../../src/accounts/schema.ts';
import type { Merchant } from '../../src/accounts/merchant.ts';
import { ChangeFeed } from '../../src/platform/db/change-feed.ts';
import { API_KEY_REVOKED_CHANNEL, MERCHANT_ACCESS_CHANGED_CHANNEL } from '../../src/accounts/key-cache.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachDb('api key cache', (h) => {
  let t: TestApp;
  let account: Account;
  const hashes: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(h.db());
    account = await signupAccount(t.app);
    for (let i = 0; i < 5; i++) {
      const k = await insertApiKey(h.db().orm, { merchantId: account.merchant.id, livemode: false, label: `cache-${i}`, access: 'full', createdBy: null, at: new Date() });
      hashes.push(hashSecret(k.secret));
    }
  });
  afterAll(async () => { await t.close(); });

  it('reads the keys missed in one turn of the event loop in one query, each answered with its own row', async () => {
    const cache = new ApiKeyCache(h.db());
    const unknown = hashSecret('not-a-key');
    const rows = await Promise.all([...hashes, unknown, hashes[0]].map((x) => cache.get(x)));
    expect(cache.lookups).toBe(1);
    expect(rows.slice(0, 5).map((r) => r?.key.secretHash)).toEqual(hashes);
    expect(rows[5]).toBeNull();
    expect(rows[6]?.key.id).toBe(rows[0]?.key.id);
    expect(rows[0]?.merchant.id).toBe(account.merchant.id);
    // Cached: no query until the entries near their end.
    await Promise.all(hashes.map((x) => cache.get(x)));
    expect(cache.lookups).toBe(1);
  });

  it('reads a key used near the end of its entry again in the background, answering at once meanwhile', async () => {
    const ttlMs = REFRESH_AHEAD_MS + 200;
    const cache = new ApiKeyCache(h.db(), { ttlMs });
    await cache.get(hashes[1]);
    await sleep(250);
    // Inside the refresh window: the cached row answers, and one read goes out for the busy keys.
    const served = await Promise.all([cache.get(hashes[1]), cache.get(hashes[1])]);
    expect(served[0]?.key.secretHash).toBe(hashes[1]);
    expect(cache.lookups).toBe(1);
    await sleep(100);
    expect(cache.lookups).toBe(2);
    // The refreshed entry lives a whole ttl from its read: still served past the first entry's end.
    await sleep(ttlMs - 250);
    await cache.get(hashes[1]);
    expect(cache.lookups).toBe(2);
  });

  it('sees a revocation made by another process within the cache time, and at once when made here', async () => {
    const ttlMs = 150;
    const cache = new ApiKeyCache(h.db(), { ttlMs });
    expect((await cache.get(hashes[2]))?.key.revokedAt).toBeNull();
    // Another process revokes: this one may serve the old row only until ttl after its read.
    await h.db().orm.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.secretHash, hashes[2]));
    await sleep(ttlMs + 20);
    expect((await cache.get(hashes[2]))?.key.revokedAt).toBeInstanceOf(Date);

    expect((await cache.get(hashes[3]))?.key.revokedAt).toBeNull();
    await h.db().orm.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.secretHash, hashes[3]));
    cache.forget(hashes[3]);
    expect((await cache.get(hashes[3]))?.key.revokedAt).toBeInstanceOf(Date);
  });

  it('does not cache a read that raced an eviction', async () => {
    const cache = new ApiKeyCache(h.db());
    const reading = cache.get(hashes[4]);
    // The query is on its way (sent after this turn) when the merchant's keys are evicted.
    await new Promise((r) => setImmediate(r));
    expect(cache.lookups).toBe(1);
    cache.forgetMerchant(account.merchant.id);
    expect((await reading)?.key.secretHash).toBe(hashes[4]);
    await cache.get(hashes[4]);
    expect(cache.lookups).toBe(2);
  });

  // Revocation is immediate (spec 7): with the database's change notices heard, another process's
  // revocation evicts the key here at once, whatever the cache time.
  it('drops a key revoked by another process as soon as the database announces it', async () => {
    const feed = new ChangeFeed(h.db(), t.platform.log, [API_KEY_REVOKED_CHANNEL]);
    const cache = new ApiKeyCache(h.db(), { ttlMs: 60_000 });
    cache.follow(feed);
    try {
      const k = await insertApiKey(h.db().orm, { merchantId: account.merchant.id, livemode: false, label: 'cache-feed', access: 'full', createdBy: null, at: new Date() });
      const hash = hashSecret(k.secret);
      // the first key asked for starts the feed
      expect((await cache.get(hash))?.key.revokedAt).toBeNull();
      const end = Date.now() + 5000;
      while (!feed.active && Date.now() < end) await sleep(10);
      expect(feed.active).toBe(true);
      await h.db().orm.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.secretHash, hash));
      let revokedAt: Date | null | undefined = null;
      while (!revokedAt && Date.now() < end) {
        revokedAt = (await cache.get(hash))?.key.revokedAt;
        if (!revokedAt) await sleep(10);
      }
      expect(revokedAt).toBeInstanceOf(Date);
    } finally {
      await feed.close();
    }
  });

  // Suspension answers 403 on every route (spec 3): another process's cache must not serve the
  // account as active for the rest of its cache time, nor its live keys once live mode is off.
  it('drops the keys of a merchant another process suspends, reinstates or switches out of live mode, as soon as the database announces it', async () => {
    const feed = new ChangeFeed(h.db(), t.platform.log, [API_KEY_REVOKED_CHANNEL, MERCHANT_ACCESS_CHANGED_CHANNEL]);
    const cache = new ApiKeyCache(h.db(), { ttlMs: 60_000 });
    cache.follow(feed);
    const other = await signupAccount(t.app);
    const hash = hashSecret(other.testKey);
    const set = (change: Partial<typeof merchants.$inferInsert>) => h.db().orm.update(merchants).set(change).where(eq(merchants.id, other.merchant.id));
    /** Asks the cache until it sees `check` hold (5 s at most). */
    const seen = async (check: (m: Merchant) => boolean) => {
      const end = Date.now() + 5000;
      for (;;) {
        const m = (await cache.get(hash))!.merchant;
        if (check(m) || Date.now() > end) return m;
        await sleep(10);
      }
    };
    try {
      expect((await cache.get(hash))?.merchant.status).toBe('active');
      const end = Date.now() + 5000;
      while (!feed.active && Date.now() < end) await sleep(10);
      expect(feed.active).toBe(true);
      await set({ status: 'suspended' });
      expect((await seen((m) => m.status === 'suspended')).status).toBe('suspended');
      await set({ status: 'active' });
      expect((await seen((m) => m.status === 'active')).status).toBe('active');
      const live = (await cache.get(hash))!.merchant;
      await set({ liveEnabled: !live.liveEnabled });
      expect((await seen((m) => m.liveEnabled !== live.liveEnabled)).liveEnabled).toBe(!live.liveEnabled);
    } finally {
      await feed.close();
    }
  });
});
