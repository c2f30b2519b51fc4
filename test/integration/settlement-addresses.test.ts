// Payout addresses (spec 4.4 Payout addresses, 7 Payout addresses, direct rules 1-2).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { ADDR, addMember, expectLedgerHolds, type Member } from '../harness/settlement.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { events } from '../../src/events/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { inModeNetwork } from '../../src/chains/addresses/index.ts';
import { decodeSegwit, encodeBase58Check } from '../../src/chains/addresses/encoding.ts';
import { createPayment } from '../harness/payments.ts';
import type { Chain } from '../../src/config.ts';

const DAY = 86_400_000;

describeEachDb('payout addresses', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  let merchantId: string;
  let owner: Member;
  let finance: Member;
  let developer: Member;
  let viewer: Member;

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await startTestApp(h.db(), { clock });
    const acct = await signupAccount(t.app);
    merchantId = acct.merchant.id;
    owner = await addMember(t, merchantId, 'owner');
    finance = await addMember(t, merchantId, 'finance');
    developer = await addMember(t, merchantId, 'developer');
    viewer = await addMember(t, merchantId, 'viewer');
  });
  afterAll(async () => { await t.close(); });
  afterEach(async () => { await expectLedgerHolds(h.db()); });

  // each call a second later, so rows made by one test have distinct times
  const call = async (m: Member, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    (clock.advance(1000), t.app.inject({ method, url, payload: payload as Record<string, unknown>, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp() }));

  const add = (m: Member, body: Record<string, unknown>, mode = '') =>
    call(m, 'POST', `/merchant/payout-addresses${mode}`, { password: m.password, ...body });

  describe('validation messages', () => {
    it.each([
      [{ token: 'DOGGO', address: ADDR.TRON }, '', 400, 'unsupported token in live mode'],
      [{ address: ADDR.TRON }, '?mode=test', 400, 'unsupported token in test mode'],
      [{ token: 'USDT_TRC20', address: 'Tnope' }, '', 400, 'address is not a valid tron address'],
      [{ token: 'BTC', address: ADDR.BTC_TESTNET }, '', 400, 'address is not a valid bitcoin address'],
      [{ token: 'USDT_BEP20' }, '', 400, 'address is not a valid bsc address'],
      [{ token: 'USDT_TRC20', address: ADDR.TRON, tag: 5 }, '', 400, 'only XRP addresses take a destination tag'],
      [{ token: 'USDT_TRC20', address: ADDR.TRON, label: 'x'.repeat(101) }, '', 400, 'label must be text of up to 100 characters'],
      [{ token: 'USDT_TRC20', address: ADDR.TRON, label: 7 }, '', 400, 'label must be text of up to 100 characters'],
      [{ token: 'XRP', address: ADDR.XRP, tag: -1 }, '', 400, 'tag must be an integer from 0 to 4294967295'],
      [{ token: 'USDT_TRC20', address: ADDR.TRON, password: 'wrong-password' }, '', 403, 'password is incorrect'],
      [{ token: 'USDT_TRC20', address: ADDR.TRON, password: '' }, '', 403, 'password is incorrect'],
    ])('POST %j%s → %i %s', async (body, mode, status, message) => {
      const res = await add(finance, body, mode);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ error: message });
    });

    it('refuses a missing password', async () => {
      const res = await call(finance, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'password is incorrect' });
    });

    it('accepts a testnet bitcoin address in test mode only', async () => {
      const res = await add(finance, { token: 'BTC', address: ADDR.BTC_TESTNET }, '?mode=test');
      expect(res.statusCode).toBe(201);
      expect(res.json().address).toMatchObject({ livemode: false, token: 'BTC', chain: 'bitcoin', default: true });
    });

    it('accepts a future witness version (BIP-350, bc1z…) in upper case, stored in lower case; mixed case refused', async () => {
      const v2 = 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs';
      const res = await add(finance, { token: 'BTC', address: v2.toUpperCase() });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().address).toMatchObject({ livemode: true, token: 'BTC', chain: 'bitcoin', address: v2 });
      const mixed = await add(finance, { token: 'BTC', address: `BC1Z${v2.slice(4)}` });
      expect([mixed.statusCode, mixed.json()]).toEqual([400, { error: 'address is not a valid bitcoin address' }]);
    });

    it('answers 404 not found and 400 nothing to update', async () => {
      const missing = await call(finance, 'PATCH', '/merchant/payout-addresses/pa_nope', { label: 'x' });
      expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'not found' }]);
      const del = await call(finance, 'DELETE', '/merchant/payout-addresses/pa_nope');
      expect([del.statusCode, del.json()]).toEqual([404, { error: 'not found' }]);
      const created = (await add(finance, { token: 'LTC', address: 'LdP8Qox1VAhCzLJNqrr74YovaWYyNBUWvL' })).json().address;
      const empty = await call(finance, 'PATCH', `/merchant/payout-addresses/${created.id}`, {});
      expect([empty.statusCode, empty.json()]).toEqual([400, { error: 'nothing to update' }]);
      const tag = await call(finance, 'PATCH', `/merchant/payout-addresses/${created.id}`, { tag: 7, password: finance.password });
      expect([tag.statusCode, tag.json()]).toEqual([400, { error: 'only XRP addresses take a destination tag' }]);
      const longLabel = await call(finance, 'PATCH', `/merchant/payout-addresses/${created.id}`, { label: 'x'.repeat(101) });
      expect([longLabel.statusCode, longLabel.json()]).toEqual([400, { error: 'label must be text of up to 100 characters' }]);
      const undefault = await call(finance, 'PATCH', `/merchant/payout-addresses/${created.id}`, { default: false });
      expect([undefault.statusCode, undefault.json()]).toEqual([400, { error: 'default can only be set to true: make another address the default instead' }]);
      const badPw = await call(finance, 'PATCH', `/merchant/payout-addresses/${created.id}`, { address: 'LUWPbpM43E2p7ZSh8cyTBEkvpHmr3cB8Ez', password: 'nope-nope' });
      expect([badPw.statusCode, badPw.json()]).toEqual([403, { error: 'password is incorrect' }]);
      // a label alone needs no password
      const label = await call(finance, 'PATCH', `/merchant/payout-addresses/${created.id}`, { label: 'cold wallet' });
      expect(label.statusCode).toBe(200);
      expect(label.json().address.label).toBe('cold wallet');
    });

    it('lets any role read but only owners and finance change', async () => {
      for (const m of [developer, viewer]) {
        const res = await add(m, { token: 'USDT_TRC20', address: ADDR.TRON });
        expect([res.statusCode, res.json()]).toEqual([403, { error: 'insufficient permissions' }]);
        expect((await call(m, 'GET', '/merchant/payout-addresses')).statusCode).toBe(200);
      }
    });
  });

  describe('defaults and activation (rule 1 and 2)', () => {
    let trc: Record<string, string | boolean>;
    /** The address each one's last payout_address:update carries (what an open dashboard shows). */
    const lastUpdates = async (ids: string[]) => {
      const told = (await h.db().orm.select().from(events).where(and(eq(events.merchantId, merchantId), eq(events.type, 'payout_address:update'))).orderBy(events.seq))
        .map((e) => (e.data as { address: { id: string } }).address);
      return ids.map((id) => told.filter((a) => a.id === id).at(-1));
    };

    it('uses the first live address of a coin at once and makes it the default', async () => {
      const res = await add(owner, { token: 'USDT_TRC20', address: ADDR.TRON, label: 'main' });
      expect(res.statusCode).toBe(201);
      trc = res.json().address;
      expect(trc).toMatchObject({ merchant_id: merchantId, livemode: true, token: 'USDT_TRC20', chain: 'tron', address: ADDR.TRON, label: 'main', default: true, created_by: owner.userId });
      expect(trc.active_at).toBe(clock.now().toISOString());
      expect(trc.tag).toBeUndefined();
    });

    it('uses another address of the coin 24 hours later, not as default until switched', async () => {
      const second = (await add(finance, { token: 'USDT_TRC20', address: ADDR.TRON_2 })).json().address;
      expect(second.default).toBe(false);
      expect(new Date(second.active_at).getTime() - clock.now().getTime()).toBe(DAY);
      const sw = await call(finance, 'PATCH', `/merchant/payout-addresses/${second.id}`, { default: true });
      expect(sw.statusCode).toBe(200);
      expect(sw.json().address.default).toBe(true);
      const list = (await call(viewer, 'GET', '/merchant/payout-addresses')).json().addresses.filter((a: { token: string }) => a.token === 'USDT_TRC20');
      expect(list.map((a: { id: string; default: boolean }) => [a.id, a.default])).toEqual([[trc.id, false], [second.id, true]]);
      // the dashboard hears both: the one that lost the default too, or it shows two defaults
      expect(await lastUpdates([trc.id as string, second.id])).toEqual(list);
    });

    it('delays a changed address or tag 24 hours and keeps test addresses at once', async () => {
      clock.advance(1000);
      const changed = await call(owner, 'PATCH', `/merchant/payout-addresses/${trc.id}`, { address: ADDR.TRON_3, password: owner.password });
      expect(changed.statusCode).toBe(200);
      expect(new Date(changed.json().address.active_at).getTime()).toBe(clock.now().getTime() + DAY);
      const xrp = (await add(owner, { token: 'XRP', address: ADDR.XRP, tag: 42 })).json().address;
      expect(xrp.tag).toBe(42);
      expect(xrp.active_at).toBe(clock.now().toISOString());
      const retag = (await call(owner, 'PATCH', `/merchant/payout-addresses/${xrp.id}`, { tag: 43, password: owner.password })).json().address;
      expect(new Date(retag.active_at).getTime()).toBe(clock.now().getTime() + DAY);
      const test1 = (await add(owner, { token: 'ETH', address: ADDR.EVM }, '?mode=test')).json().address;
      const test2 = (await add(owner, { token: 'ETH', address: ADDR.EVM_2 }, '?mode=test')).json().address;
      expect([test1.active_at, test2.active_at]).toEqual([test1.created_at, test2.created_at]);
      expect([test1.default, test2.default]).toEqual([true, false]);
      const liveEth = (await call(viewer, 'GET', '/merchant/payout-addresses')).json().addresses.filter((a: { token: string }) => a.token === 'ETH');
      expect(liveEth).toEqual([]);
    });

    it('delays an address added after the coin\'s last address was deleted', async () => {
      const first = (await add(owner, { token: 'BNB', address: ADDR.EVM })).json().address;
      expect(first.active_at).toBe(clock.now().toISOString());
      const del = await call(owner, 'DELETE', `/merchant/payout-addresses/${first.id}`);
      expect([del.statusCode, del.json()]).toEqual([200, { message: 'address deleted' }]);
      const again = (await add(owner, { token: 'BNB', address: ADDR.EVM_2 })).json().address;
      expect(again.default).toBe(true);
      expect(new Date(again.active_at).getTime()).toBe(clock.now().getTime() + DAY);
    });

    it('passes the default on to the oldest address left when the default is deleted', async () => {
      const a = (await add(owner, { token: 'USDC_BEP20', address: ADDR.EVM })).json().address;
      const b = (await add(owner, { token: 'USDC_BEP20', address: ADDR.EVM_2 })).json().address;
      await call(owner, 'DELETE', `/merchant/payout-addresses/${a.id}`);
      const list = (await call(owner, 'GET', '/merchant/payout-addresses')).json().addresses.filter((x: { token: string }) => x.token === 'USDC_BEP20');
      expect(list.map((x: { id: string; default: boolean }) => [x.id, x.default])).toEqual([[b.id, true]]);
      expect(await lastUpdates([b.id])).toEqual(list);
    });
  });

  describe('the gateway\'s own addresses and token contracts', () => {
    const OWN = 'address belongs to this gateway: use an address of your own wallet';
    const contract = (token: string) => `address is the ${token} token contract: tokens sent there are lost`;
    const hot = (chain: Chain, livemode: boolean) => t.services.sending.keys.hotAddress(chain, livemode);
    const refused = async (res: { statusCode: number; json(): unknown }, error: string, what: unknown) => {
      expect([res.statusCode, res.json()], JSON.stringify(what)).toEqual([400, { error }]);
    };
    const COINS: [string, Chain][] = [
      ['BTC', 'bitcoin'], ['LTC', 'litecoin'], ['DOGE', 'dogecoin'], ['ETH', 'ethereum'], ['USDT_ERC20', 'ethereum'], ['BNB', 'bsc'],
      ['USDC_BEP20', 'bsc'], ['TRX', 'tron'], ['USDT_TRC20', 'tron'], ['XRP', 'xrp'],
    ];

    it('refuses the hot wallet of every chain, live and test, in any form of its network, with or without an XRP tag', async () => {
      for (const [token, chain] of COINS) {
        // live: the live hot wallet (and the other EVM chain's: the same key pays out on both)
        const live = [hot(chain, true), ...(chain === 'ethereum' || chain === 'bsc' ? [hot(chain === 'ethereum' ? 'bsc' : 'ethereum', true).toLowerCase()] : [])];
        for (const address of live) await refused(await add(owner, { token, address }), OWN, [token, address]);
        // test: the test hot wallet, also written in mainnet form (test payout addresses may be mainnet ones)
        const testHot = hot(chain, false);
        for (const address of new Set([testHot, inModeNetwork(chain, true, testHot)].filter((a) => chain !== 'dogecoin' || a.startsWith('D')))) {
          await refused(await add(owner, { token, address }, '?mode=test'), OWN, [token, address, 'test']);
        }
      }
      await refused(await add(owner, { token: 'XRP', address: hot('xrp', true), tag: 7 }), OWN, 'xrp tag');
      await refused(await add(owner, { token: 'XRP', address: hot('xrp', false), tag: 0 }, '?mode=test'), OWN, 'xrp test tag');
      // the Bitcoin hot wallet's key written as a legacy P2PKH address (1…) is the gateway's key too
      const p2pkh = encodeBase58Check(0x00, decodeSegwit(hot('bitcoin', true), 'bc')!.program);
      await refused(await add(owner, { token: 'BTC', address: p2pkh }), OWN, p2pkh);
      const list = (await call(viewer, 'GET', '/merchant/payout-addresses?mode=test')).json().addresses as { address: string }[];
      expect(list.map((a) => a.address)).not.toContain(hot('bitcoin', false));
    });

    it('refuses a deposit address the gateway handed out, live or test, in either mode and any form of the same key', async () => {
      const acct = await signupAccount(t.app);
      const eth = await createPayment(t.app, acct.testKey, { token: 'ETH' });
      const btc = await createPayment(t.app, acct.testKey, { token: 'BTC' });
      const trx = await createPayment(t.app, acct.testKey, { token: 'TRX' });
      const xrp = await createPayment(t.app, acct.testKey, { token: 'XRP' });
      for (const [token, address, tag] of [
        ['ETH', eth.deposit_address], ['USDT_ERC20', eth.deposit_address.toLowerCase()], ['BTC', btc.deposit_address],
        ['BTC', inModeNetwork('bitcoin', true, btc.deposit_address)], ['USDT_TRC20', trx.deposit_address], ['XRP', xrp.deposit_address, xrp.destination_tag],
      ] as [string, string, number?][]) {
        await refused(await add(owner, { token, address, ...(tag === undefined ? {} : { tag }) }, '?mode=test'), OWN, [token, address, 'test']);
      }
      // a test deposit address holds the gateway's key on the main network too
      await refused(await add(owner, { token: 'ETH', address: eth.deposit_address }), OWN, 'live eth');
      await refused(await add(owner, { token: 'BTC', address: inModeNetwork('bitcoin', true, btc.deposit_address) }), OWN, 'live btc');
      // a live deposit address (a live payment needs a node: this one is made live in its row)
      const live = t.services.sending.keys.deposit('ethereum', true, 7).address;
      const made = await createPayment(t.app, acct.testKey, { token: 'USDT_ERC20' });
      await h.db().orm.execute(sql`update payments set livemode = true, deposit_address = ${live} where id = ${made.id}`);
      for (const token of ['ETH', 'USDC_ERC20']) await refused(await add(owner, { token, address: live.toLowerCase() }), OWN, [token, 'live']);
      // and on BNB Smart Chain, where the same key holds what is sent to it
      await refused(await add(owner, { token: 'BNB', address: live }), OWN, 'live on bsc');
    });

    it('refuses the token contracts of the chain, named by their token, live and test', async () => {
      for (const [token, address, named] of [
        ['USDT_ERC20', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 'USDT_ERC20'],
        ['USDT_ERC20', '0xdac17f958d2ee523a2206206994597c13d831ec7', 'USDT_ERC20'],
        ['USDC_ERC20', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'USDC_ERC20'],
        ['USDT_ERC20', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'USDC_ERC20'],
        ['ETH', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 'USDT_ERC20'],
        ['USDT_BEP20', '0x55d398326f99059fF775485246999027B3197955', 'USDT_BEP20'],
        ['USDC_BEP20', '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 'USDC_BEP20'],
        ['BNB', '0x55D398326F99059FF775485246999027B3197955', 'USDT_BEP20'],
        ['USDT_TRC20', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'USDT_TRC20'],
        ['TRX', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'USDT_TRC20'],
      ]) {
        for (const mode of ['', '?mode=test']) await refused(await add(owner, { token, address }, mode), contract(named), [token, address, mode]);
      }
      // another chain's contract is an ordinary address there
      expect((await add(owner, { token: 'USDT_BEP20', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7' }, '?mode=test')).statusCode).toBe(201);
    });

    it('refuses a contract of TOKEN_CONTRACTS as well as the mainnet one', async () => {
      const local = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
      const other = await startTestApp(h.db(), { clock, env: { TOKEN_CONTRACTS: `USDT_ERC20=${local}` } });
      try {
        for (const address of [local, '0xdAC17F958D2ee523a2206206994597C13D831ec7']) {
          for (const mode of ['', '?mode=test']) {
            const res = await other.app.inject({ method: 'POST', url: `/merchant/payout-addresses${mode}`, payload: { token: 'USDT_ERC20', address, password: owner.password }, headers: { authorization: `Bearer ${await owner.token()}` }, remoteAddress: randomIp() });
            await refused(res, contract('USDT_ERC20'), [address, mode]);
          }
        }
      } finally {
        await other.close();
      }
    });

    it('refuses a PATCH that moves an address to the gateway or a contract; other changes of such a row still go', async () => {
      const row = (await add(owner, { token: 'USDT_ERC20', address: ADDR.EVM_2 })).json().address;
      await refused(await call(owner, 'PATCH', `/merchant/payout-addresses/${row.id}`, { address: hot('ethereum', true), password: owner.password }), OWN, 'patch hot');
      await refused(await call(owner, 'PATCH', `/merchant/payout-addresses/${row.id}`, { address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', password: owner.password }), contract('USDT_ERC20'), 'patch contract');
      const xrp = (await add(owner, { token: 'XRP', address: ADDR.XRP, tag: 1 }, '?mode=test')).json().address;
      await refused(await call(owner, 'PATCH', `/merchant/payout-addresses/${xrp.id}`, { address: hot('xrp', false), password: owner.password }), OWN, 'patch xrp');
      // a row stored before the check (here written directly) can still be relabelled
      await h.db().orm.execute(sql`update payout_addresses set address = ${hot('ethereum', true)} where id = ${row.id}`);
      const label = await call(owner, 'PATCH', `/merchant/payout-addresses/${row.id}`, { label: 'old' });
      expect(label.statusCode, label.body).toBe(200);
      const same = await call(owner, 'PATCH', `/merchant/payout-addresses/${row.id}`, { address: hot('ethereum', true), password: owner.password });
      expect(same.statusCode, same.body).toBe(200);
      const stored = (await call(owner, 'GET', '/merchant/payout-addresses')).json().addresses.find((a: { id: string }) => a.id === row.id);
      expect(stored.address).toBe(hot('ethereum', true));
      await call(owner, 'DELETE', `/merchant/payout-addresses/${row.id}`);
    });
  });

  it('after 5 wrong passwords refuses only the re-check (429): a label or default change, which needs no password, goes on', async () => {
    // a member of its own: the limit is per member
    const m = await addMember(t, merchantId, 'finance');
    const a = (await add(owner, { token: 'XRP', address: ADDR.XRP, label: 'first' })).json().address;
    for (let i = 0; i < 5; i++) expect((await add(m, { token: 'XRP', address: ADDR.XRP, password: 'wrong-password' })).statusCode).toBe(403);
    const label = await call(m, 'PATCH', `/merchant/payout-addresses/${a.id}`, { label: 'renamed' });
    expect([label.statusCode, label.json().address?.label]).toEqual([200, 'renamed']);
    const dflt = await call(m, 'PATCH', `/merchant/payout-addresses/${a.id}`, { default: true });
    expect(dflt.statusCode, dflt.body).toBe(200);
    // a body refused before its password is checked is answered as such
    const bad = await add(m, { token: 'XRP', address: 'rNope' });
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'address is not a valid xrp address' }]);
    // the re-checks wait out the window, even with the right password
    for (const res of [await add(m, { token: 'XRP', address: ADDR.XRP }), await call(m, 'PATCH', `/merchant/payout-addresses/${a.id}`, { tag: 7, password: m.password })]) {
      expect([res.statusCode, res.json()]).toEqual([429, { error: 'rate limit exceeded' }]);
    }
  });

  it('a PATCH that changes nothing answers the address as it is, with no audit entry, event or notification', async () => {
    const created = (await add(finance, { token: 'DOGE', address: 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L', label: 'same' })).json();
    const id = created.address.id;
    const written = async () => {
      const [{ n }] = await queryRows<{ n: number }>(h.db().orm, sql`
        select (select count(*) from audit_entries where subject = ${id})::int + (select count(*) from events where data::text like ${`%${id}%`})::int as n`);
      return n;
    };
    const before = await written();
    for (const body of [{ label: 'same' }, { address: 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L' }, { default: true }, { label: 'same', default: true }]) {
      const res = await call(finance, 'PATCH', `/merchant/payout-addresses/${id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(200);
      expect(res.json().address).toEqual(created.address);
    }
    expect(await written()).toBe(before);
    // a real change still is one
    expect((await call(finance, 'PATCH', `/merchant/payout-addresses/${id}`, { label: 'other' })).json().address.label).toBe('other');
    expect(await written()).toBeGreaterThan(before);
  });

  it('audits every change without the password, and tells the dashboard and the team', async () => {
    const created = (await add(finance, { token: 'DOGE', address: 'DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L' })).json();
    expect(created.error ?? null).toBeNull();
    const id = created.address.id;
    await call(finance, 'PATCH', `/merchant/payout-addresses/${id}`, { label: 'doge' });
    await call(finance, 'DELETE', `/merchant/payout-addresses/${id}`);
    const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, merchantId), eq(auditEntries.subject, id))).orderBy(auditEntries.at);
    expect(audit.map((a) => [a.action, a.note])).toEqual([['payout_address.updated', 'added'], ['payout_address.updated', 'changed'], ['payout_address.updated', 'deleted']]);
    expect(JSON.stringify(audit)).not.toContain(finance.password);
    expect(audit[0].before).toBeNull();
    expect((audit[1].before as { label: string }).label).toBe('');
    expect((audit[1].after as { label: string }).label).toBe('doge');
    expect(audit[2].after).toBeNull();
    // oldest first: without an order PostgreSQL may hand rows back in any order (CI once saw the delete first)
    const outbox = await h.db().orm.select().from(events).where(eq(events.merchantId, merchantId)).orderBy(events.seq);
    const updates = outbox.filter((e) => e.type === 'payout_address:update' && (e.data as { address: { id: string } }).address.id === id);
    expect(updates.map((e) => (e.data as { deleted: boolean }).deleted)).toEqual([false, false, true]);
    const notes = outbox.filter((e) => e.type === 'notification' && (e.data as { subject?: string }).subject === id).map((e) => e.data as Record<string, string>);
    expect(notes.map((n) => [n.category, n.title])).toEqual([
      ['payouts', 'Payout address added'], ['payouts', 'Payout address changed'], ['payouts', 'Payout address deleted'],
    ]);
    expect(notes[0].body).toMatch(/live DOGE payout address DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L was added/);
    const stored = await call(viewer, 'GET', '/merchant/notifications?category=payouts');
    expect(stored.json().notifications.filter((n: { subject: string }) => n.subject === id).map((n: { title: string }) => n.title))
      .toEqual(['Payout address deleted', 'Payout address changed', 'Payout address added']);
    const [{ n }] = await queryRows<{ n: number }>(h.db().orm, sql`select count(*)::int as n from payout_addresses where id = ${id} and deleted_at is not null`);
    expect(n).toBe(1);
  });
});
