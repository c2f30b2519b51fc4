// Payment links (CONTRACT.md "Payment links"): the merchant's routes, the customer's POST
// /l/{slug}/payments and hosted page, the link's payments counted from the outbox exactly once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, keyHeader, randomIp, signupAccount, tokenHeader, type Account, type Member } from '../harness/accounts.ts';
import { confirmPayment, handGroupEventsAgain, type Json } from '../harness/payments.ts';
import { ANY_ROLE, DASHBOARD_ROUTES, OWNER_DEVELOPER, merchants } from '../../src/accounts/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { paymentLinks } from '../../src/links/index.ts';
import pg from 'pg';
import { committedMeanwhile, untilLockWaiterOr, untilLockWaiters } from '../harness/lock-waits.ts';
import { FreezableClock } from '../harness/freezable-clock.ts';

const LIVE_LINK_OFF = 'live mode is off for this account: the owner can turn it on in the dashboard; until then make a test link (?mode=test)';

describeEachDb('payment links', (h) => {
  // real time, held still where five requests must fall in one second of a per-IP limit
  const clock = new FreezableClock();
  let t: TestApp;
  let owner: Account;
  let dev: Member;
  let viewer: Member;
  let finance: Member;
  beforeAll(async () => {
    // A node URL makes ETH payable in live mode (nothing is started: workers stay off in tests).
    t = await startTestApp(h.db(), { clock, env: { SIMULATION_STEP_MS: '0', ETHEREUM_RPC_URL: 'http://127.0.0.1:8545' } });
    owner = await signupAccount(t.app);
    dev = await addMember(t.app, owner.accessToken, 'developer');
    viewer = await addMember(t.app, owner.accessToken, 'viewer');
    finance = await addMember(t.app, owner.accessToken, 'finance');
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const create = (token: string, payload: object, mode = '?mode=test') => inject({ method: 'POST', url: `/merchant/links${mode}`, headers: tokenHeader(token), payload });
  const makeLink = async (payload: object = {}, token = dev.accessToken, mode = '?mode=test'): Promise<Json> => {
    const res = await create(token, { name: 'T-shirt', amount_usd: '25', ...payload }, mode);
    if (res.statusCode !== 201) throw new Error(`link: ${res.statusCode} ${res.body}`);
    return res.json().link;
  };
  const slugOf = (link: Json) => String(link.url).split('/l/')[1];
  const pay = (slug: string, payload?: object, ip = randomIp()) => t.app.inject({ method: 'POST', url: `/l/${slug}/payments`, remoteAddress: ip, ...(payload ? { payload } : {}) });
  const getLink = async (id: string): Promise<Json> => (await inject({ method: 'GET', url: `/merchant/links/${id}`, headers: tokenHeader(viewer.accessToken) })).json().link;
  const linkEvents = async (id: string) => (await h.db().orm.select().from(events).where(eq(events.type, 'link:update')).orderBy(asc(events.seq)))
    .filter((e) => (e.data as Json).id === id).map((e) => e.data as Json);

  it('declares the roles: anyone reads, owners and developers make and change links', () => {
    expect(DASHBOARD_ROUTES.get('GET /merchant/links')?.roles).toEqual(ANY_ROLE);
    expect(DASHBOARD_ROUTES.get('GET /merchant/links/:id')?.roles).toEqual(ANY_ROLE);
    expect(DASHBOARD_ROUTES.get('POST /merchant/links')?.roles).toEqual(OWNER_DEVELOPER);
    expect(DASHBOARD_ROUTES.get('PATCH /merchant/links/:id')?.roles).toEqual(OWNER_DEVELOPER);
  });

  it('makes a test link with ?mode=test: 201 {link} with its url, audited, and link:update raised', async () => {
    const res = await create(dev.accessToken, {
      name: ' Hoodie ', amount_usd: 49.9, description: 'Warm', tokens: ['USDT_TRC20', 'ETH'], success_url: 'https://shop.example/thanks', cancel_url: 'https://shop.example/cart',
    });
    expect(res.statusCode).toBe(201);
    const link = res.json().link;
    expect(link).toEqual({
      id: expect.stringMatching(/^lnk_/), merchant_id: owner.merchant.id, livemode: false, name: 'Hoodie', amount_usd: '49.9', description: 'Warm',
      tokens: ['USDT_TRC20', 'ETH'], success_url: 'https://shop.example/thanks', cancel_url: 'https://shop.example/cart', active: true,
      url: expect.stringMatching(new RegExp(`^${t.config.checkoutUrl}/l/[A-Za-z0-9_-]{16}$`)), payments: 0, volume_usd: '0.00',
      created_at: expect.any(String), updated_at: link.created_at,
    });
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, link.id), eq(auditEntries.action, 'payment_link.created')));
    expect(audit.actor).toMatchObject({ kind: 'merchant', id: dev.id });
    expect(await linkEvents(link.id)).toEqual([link]);
  });

  it('makes a link of a store, and refuses another account\'s store', async () => {
    const store = (await inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(owner.accessToken), payload: { name: 'Outlet' } })).json().store;
    expect((await makeLink({ store_id: store.id })).store_id).toBe(store.id);
    const other = await signupAccount(t.app);
    const theirs = (await inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(other.accessToken), payload: { name: 'X' } })).json().store;
    for (const store_id of [theirs.id, 'sto_nope', 7, '']) {
      const res = await create(owner.accessToken, { name: 'n', amount_usd: '5', store_id });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'unknown store_id' });
    }
    // a NUL character is refused before any lookup, as in every body field
    const nul = await create(owner.accessToken, { name: 'n', amount_usd: '5', store_id: 'a\u0000b' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toEqual({ error: 'store_id must not contain NUL characters' });
  });

  it.each([
    [{ amount_usd: '5' }, 'name is required (up to 100 characters)'],
    [{ name: '  ', amount_usd: '5' }, 'name is required (up to 100 characters)'],
    [{ name: 'n'.repeat(101), amount_usd: '5' }, 'name is required (up to 100 characters)'],
    // counted as sent (the document's maxLength), white space at either end included
    [{ name: `${'n'.repeat(100)} `, amount_usd: '5' }, 'name is required (up to 100 characters)'],
    [{ name: 'a\u0000b', amount_usd: '5' }, 'name must not contain NUL characters'],
    [{ name: 'n' }, 'amount_usd is required'],
    [{ name: 'n', amount_usd: '1.005' }, 'amount_usd has more than 2 decimals'],
    [{ name: 'n', amount_usd: -3 }, 'amount_usd must be greater than 0'],
    [{ name: 'n', amount_usd: '5', tokens: 'ETH' }, 'tokens must be an array of token symbols'],
    [{ name: 'n', amount_usd: '5', tokens: ['FOO'] }, 'unsupported token: FOO'],
    [{ name: 'n', amount_usd: '5', success_url: 'ftp://x' }, 'success_url: url must be an absolute http(s) URL'],
    [{ name: 'n', amount_usd: '5', cancel_url: 'nope' }, 'cancel_url: url must be an absolute http(s) URL'],
    [{ name: 'n', amount_usd: '5', description: 'd'.repeat(1001) }, 'description must be a string of at most 1000 characters'],
    [{ name: 'n', amount_usd: '5', description: 'a\u0000' }, 'description must not contain NUL characters'],
  ])('refuses %j: 400 %s', async (payload, error) => {
    const res = await create(owner.accessToken, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error });
  });

  it('refuses a coin the merchant has not enabled, a live link while live mode is off, and viewers and finance', async () => {
    const acct = await signupAccount(t.app);
    await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(acct.accessToken), payload: { enabled_tokens: ['BTC'] } });
    const coin = await create(acct.accessToken, { name: 'n', amount_usd: '50', tokens: ['ETH'] });
    expect(coin.statusCode).toBe(400);
    expect(coin.json()).toEqual({ error: 'not enabled for your account: ETH' });
    const live = await create(acct.accessToken, { name: 'n', amount_usd: '50' }, '');
    expect(live.statusCode).toBe(403);
    expect(live.json()).toEqual({ error: LIVE_LINK_OFF });
    for (const m of [viewer, finance]) {
      const res = await create(m.accessToken, { name: 'n', amount_usd: '5' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'insufficient permissions' });
    }
  });

  it('lists the links of a mode with `active`, total, limit and offset; 400 for an `active` that is not true or false', async () => {
    const acct = await signupAccount(t.app);
    const a = await makeLink({ name: 'a' }, acct.accessToken);
    await new Promise((r) => setTimeout(r, 5)); // newest first: b is made a later millisecond
    const b = await makeLink({ name: 'b' }, acct.accessToken);
    await inject({ method: 'PATCH', url: `/merchant/links/${a.id}`, headers: tokenHeader(acct.accessToken), payload: { active: false } });
    const list = (qs: string) => inject({ method: 'GET', url: `/merchant/links${qs}`, headers: tokenHeader(acct.accessToken) });
    expect((await list('?mode=test')).json()).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect((await list('?mode=test')).json().links.map((l: Json) => l.id)).toEqual([b.id, a.id]);
    expect((await list('?mode=test&active=true')).json().links.map((l: Json) => l.id)).toEqual([b.id]);
    expect((await list('?mode=test&active=false')).json().links.map((l: Json) => l.id)).toEqual([a.id]);
    expect((await list('')).json()).toMatchObject({ links: [], total: 0 });
    expect((await list('?mode=test&limit=500&offset=-2')).json()).toMatchObject({ limit: 50, offset: 0 });
    expect((await list('?mode=test&limit=1&offset=1')).json().links.map((l: Json) => l.id)).toEqual([a.id]);
    const bad = await list('?mode=test&active=yes');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'active must be true or false' });
  });

  it('reads a link of either mode by id; 404 `not found` for another account\'s, unknown or malformed', async () => {
    const link = await makeLink();
    expect(await getLink(link.id)).toEqual(link);
    const other = await signupAccount(t.app);
    for (const id of [link.id, 'lnk_nope', 'a%20b']) {
      const res = await inject({ method: 'GET', url: `/merchant/links/${id}`, headers: tokenHeader(other.accessToken) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not found' });
    }
  });

  it('takes a description as PATCH does: trimmed, and an empty or blank one is none (its payments carry the link\'s name)', async () => {
    for (const description of ['', '   ']) {
      const link = await makeLink({ description });
      expect(link).not.toHaveProperty('description');
      const p = await pay(slugOf(link));
      expect(p.statusCode, p.body).toBe(201);
      expect(p.json().description).toBe('T-shirt');
    }
    const trimmed = await makeLink({ description: '  Blue, size M ' });
    expect(trimmed.description).toBe('Blue, size M');
    expect((await pay(slugOf(trimmed))).json().description).toBe('Blue, size M');
  });

  it('changes name, description and active; 400 for nothing to change or a bad value', async () => {
    const link = await makeLink({ description: 'old' });
    const patch = (payload: object, token = dev.accessToken) => inject({ method: 'PATCH', url: `/merchant/links/${link.id}`, headers: tokenHeader(token), payload });
    const res = await patch({ name: 'Renamed', description: null, active: false });
    expect(res.statusCode).toBe(200);
    const changed = res.json().link;
    expect(changed).toMatchObject({ name: 'Renamed', active: false, amount_usd: '25' });
    expect(changed).not.toHaveProperty('description');
    expect((await linkEvents(link.id)).at(-1)).toEqual(changed);
    for (const [payload, error] of [[{}, 'nothing to update'], [{ amount_usd: '3' }, 'nothing to update'], [{ active: 'no' }, 'active must be true or false'], [{ name: '' }, 'name is required (up to 100 characters)'], [{ name: `\t${'x'.repeat(100)}` }, 'name is required (up to 100 characters)']] as const) {
      const bad = await patch(payload);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error });
    }
    expect((await patch({ name: 'x' }, viewer.accessToken)).statusCode).toBe(403);
    const missing = await inject({ method: 'PATCH', url: '/merchant/links/lnk_nope', headers: tokenHeader(dev.accessToken), payload: { name: 'x' } });
    expect(missing.statusCode).toBe(404);
  });

  // Another change committed while this one waits (a second dashboard tab): the audit's `before` is
  // what this change replaced, so the trail reads Old -> Other -> New, never Old -> New twice.
  it.skipIf(h.kind !== 'postgres')('audits the link as it was when the change was made, with a change committed meanwhile', async () => {
    const link = await makeLink({ name: 'Old' });
    const res = await committedMeanwhile(h.db(), h.url()!, `update payment_links set name = 'Other' where id = $1`, [link.id],
      () => inject({ method: 'PATCH', url: `/merchant/links/${link.id}`, headers: tokenHeader(dev.accessToken), payload: { name: 'New' } }));
    expect(res.statusCode).toBe(200);
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, link.id), eq(auditEntries.action, 'payment_link.updated')));
    expect([(audit.before as Json).name, (audit.after as Json).name]).toEqual(['Other', 'New']);
  });

  // A customer opening a link while the merchant turns it off: the payment is made only if its
  // creation committed before the deactivation, never after the deactivation answered.
  const paymentsOfLink = async (linkId: string) =>
    (await h.db().pool!.query(`select id from payments where metadata->>'link_id' = $1`, [linkId])).rows;

  it.skipIf(h.kind !== 'postgres')('makes no payment of a link whose deactivation committed while the payment was being made', async () => {
    const link = await makeLink();
    // The link is read active, then the deactivation commits while the creation waits for the link's row.
    const res = await committedMeanwhile(h.db(), h.url()!, `update payment_links set active = false where id = $1`, [link.id], () => pay(slugOf(link)));
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('not found');
    expect(await paymentsOfLink(link.id)).toEqual([]);
  });

  it.skipIf(h.kind !== 'postgres')('answers a deactivation only once a payment of the link being made is committed', async () => {
    const link = await makeLink();
    // Hold every payment insert back, so the customer's creation is caught between its check of the link and its write.
    const locker = new pg.Client({ connectionString: h.url()! });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table payments in share mode');
      const paid = pay(slugOf(link));
      await untilLockWaiters(h.db(), 1);
      let answered = false;
      const off = inject({ method: 'PATCH', url: `/merchant/links/${link.id}`, headers: tokenHeader(dev.accessToken), payload: { active: false } })
        .then((r) => { answered = true; return r; });
      // The deactivation either answers (it did not wait for the payment) or queues behind it.
      await untilLockWaiterOr(h.db(), () => answered, 2);
      const answeredBeforePayment = answered;
      await locker.query('commit');
      const [p, o] = await Promise.all([paid, off]);
      expect(o.statusCode).toBe(200);
      expect(p.statusCode).toBe(201);
      expect(answeredBeforePayment).toBe(false);
      expect((await paymentsOfLink(link.id)).map((r) => r.id)).toEqual([p.json().id]);
      expect((await pay(slugOf(link))).statusCode).toBe(404);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
    }
  });

  it('makes a new payment per POST /l/{slug}/payments: 201 the payer\'s view with checkout_url, CORS open', async () => {
    const link = await makeLink({ tokens: ['USDT_TRC20'], description: 'Blue, size M', success_url: 'https://shop.example/ok' });
    const res = await pay(slugOf(link), { customer_email: 'Buyer@Example.com' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const p = res.json();
    expect(p).toMatchObject({
      order_id: `link_${link.id}_1`, status: 'pending', livemode: false, usd_amount: '25', description: 'Blue, size M',
      success_url: 'https://shop.example/ok', checkout_url: expect.stringMatching(new RegExp(`^${t.config.checkoutUrl}/pay/`)),
    });
    for (const hidden of ['merchant_id', 'metadata', 'customer_email', 'webhook_url', 'checkout_token']) expect(p).not.toHaveProperty(hidden);
    expect(p.token_options.map((o: Json) => o.token)).toEqual(['USDT_TRC20']);
    const second = (await pay(slugOf(link))).json();
    expect(second.order_id).toBe(`link_${link.id}_2`);
    const full = (await inject({ method: 'GET', url: `/merchant/payments/${p.id}`, headers: tokenHeader(viewer.accessToken) })).json();
    expect(full).toMatchObject({ metadata: { link_id: link.id }, customer_email: 'Buyer@Example.com', merchant_id: owner.merchant.id });
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.paymentId, p.id), eq(auditEntries.action, 'payment.created')));
    expect(audit.actor).toMatchObject({ kind: 'customer' });
    const preflight = await t.app.inject({ method: 'OPTIONS', url: `/l/${slugOf(link)}/payments`, headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers the same payer\'s view as the checkout: with merchant_name, and store_name for a store\'s link', async () => {
    const store = (await inject({ method: 'POST', url: '/merchant/stores', headers: tokenHeader(owner.accessToken), payload: { name: 'Corner shop' } })).json().store;
    for (const link of [await makeLink(), await makeLink({ store_id: store.id })]) {
      const res = await pay(slugOf(link));
      expect(res.statusCode).toBe(201);
      const p = res.json();
      const token = String(p.checkout_url).slice(String(p.checkout_url).lastIndexOf('/') + 1);
      const view = (await t.app.inject({ method: 'GET', url: `/checkout/${token}` })).json();
      expect(view.merchant_name).toEqual(expect.any(String));
      expect([p.merchant_name, p.store_name]).toEqual([view.merchant_name, view.store_name]);
      expect(p.store_name).toBe(link.store_id ? 'Corner shop' : undefined);
    }
  });

  it('answers 404 `not found` for an unknown or inactive link and a suspended account, 400 for a bad customer_email', async () => {
    const link = await makeLink();
    for (const [payload, error] of [[{ customer_email: 'nope' }, 'customer_email must be an email address'], [{ customer_email: 12 }, 'customer_email must be an email address'], [{ customer_email: 'a\u0000@b.co' }, 'customer_email must not contain NUL characters']] as const) {
      const res = await pay(slugOf(link), payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error });
    }
    for (const slug of ['nope', 'bad%20slug', 'x'.repeat(100)]) {
      const res = await pay(slug);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not found' });
    }
    await inject({ method: 'PATCH', url: `/merchant/links/${link.id}`, headers: tokenHeader(dev.accessToken), payload: { active: false } });
    expect((await pay(slugOf(link))).json()).toEqual({ error: 'not found' });
    const acct = await signupAccount(t.app);
    const theirs = await makeLink({}, acct.accessToken);
    await h.db().orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, acct.merchant.id));
    const suspended = await pay(slugOf(theirs));
    expect(suspended.statusCode).toBe(404);
  });

  it('makes live payments from a live link only while live mode is on', async () => {
    const acct = await signupAccount(t.app);
    const live = (on: boolean) => inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: on } });
    await live(true);
    const link = await makeLink({ amount_usd: '100' }, acct.accessToken, '');
    expect(link.livemode).toBe(true);
    const ok = await pay(slugOf(link));
    expect(ok.statusCode).toBe(201);
    expect(ok.json().livemode).toBe(true);
    await live(false);
    const off = await pay(slugOf(link));
    expect(off.statusCode).toBe(403);
    expect(off.json()).toEqual({ error: 'this link is not taking payments right now' });
  });

  it('offers only the link\'s coins the merchant still accepts; none left: not taking payments until one is back', async () => {
    const acct = await signupAccount(t.app);
    const accept = (coins: string[]) => inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(acct.accessToken), payload: { enabled_tokens: coins } });
    const link = await makeLink({ tokens: ['BTC', 'ETH'] }, acct.accessToken);
    expect((await accept(['BTC', 'USDT_TRC20'])).statusCode).toBe(200);
    const one = await pay(slugOf(link));
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json().token_options.map((o: Json) => o.token)).toEqual(['BTC']);
    // the link keeps what the merchant chose: turning ETH on again offers it again
    expect((await inject({ method: 'GET', url: `/merchant/links/${link.id}`, headers: tokenHeader(acct.accessToken) })).json().link.tokens).toEqual(['BTC', 'ETH']);
    expect((await accept(['USDT_TRC20'])).statusCode).toBe(200);
    const none = await pay(slugOf(link));
    expect([none.statusCode, none.json()]).toEqual([403, { error: 'this link is not taking payments right now' }]);
    expect((await t.app.inject({ method: 'HEAD', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() })).statusCode).toBe(404);
    expect((await accept(['ETH', 'BTC'])).statusCode).toBe(200);
    const back = await pay(slugOf(link));
    expect(back.statusCode).toBe(201);
    expect(back.json().token_options.map((o: Json) => o.token).sort()).toEqual(['BTC', 'ETH']);
    expect((await t.app.inject({ method: 'HEAD', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() })).statusCode).toBe(200);
  });

  it('offers a live link\'s coins that have a node now; none left: not taking payments, never the merchant\'s node message', async () => {
    const acct = await signupAccount(t.app);
    await inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
    // Made while a bitcoin node was configured; this app has an Ethereum node only.
    const withBtc = await startTestApp(h.db(), { env: { ETHEREUM_RPC_URL: 'http://127.0.0.1:8545', BITCOIN_RPC_URL: 'http://u:p@127.0.0.1:8332' } });
    let both: Json;
    let btcOnly: Json;
    try {
      const make = async (tokens: string[]) => {
        const res = await withBtc.app.inject({ method: 'POST', url: '/merchant/links', headers: tokenHeader(acct.accessToken), remoteAddress: randomIp(), payload: { name: 'n', amount_usd: '100', tokens } });
        expect(res.statusCode, res.body).toBe(201);
        return res.json().link as Json;
      };
      both = await make(['BTC', 'ETH']);
      btcOnly = await make(['BTC']);
    } finally {
      await withBtc.close();
    }
    const one = await pay(slugOf(both));
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json().token_options.map((o: Json) => o.token)).toEqual(['ETH']);
    const none = await pay(slugOf(btcOnly));
    expect([none.statusCode, none.json()]).toEqual([403, { error: 'this link is not taking payments right now' }]);
    expect((await t.app.inject({ method: 'HEAD', url: `/l/${slugOf(btcOnly)}`, remoteAddress: randomIp() })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'HEAD', url: `/l/${slugOf(both)}`, remoteAddress: randomIp() })).statusCode).toBe(200);
  });

  it('a live link of every coin while none of the merchant\'s coins has a node: not taking payments, never the merchant\'s `no coin` message', async () => {
    const acct = await signupAccount(t.app);
    await inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
    const accept = (coins: string[]) => inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(acct.accessToken), payload: { enabled_tokens: coins } });
    // No `tokens`: the link offers every coin the merchant accepts; this app has an Ethereum node only.
    const link = await makeLink({ amount_usd: '100' }, acct.accessToken, '');
    expect((await accept(['BTC'])).statusCode).toBe(200);
    const none = await pay(slugOf(link));
    expect([none.statusCode, none.json()]).toEqual([403, { error: 'this link is not taking payments right now' }]);
    expect((await t.app.inject({ method: 'HEAD', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() })).statusCode).toBe(404);
    const page = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() });
    expect([page.statusCode, page.json()]).toEqual([403, { error: 'this link is not taking payments right now' }]);
    // ETH has a node: offered again.
    expect((await accept(['BTC', 'ETH'])).statusCode).toBe(200);
    const back = await pay(slugOf(link));
    expect(back.statusCode, back.body).toBe(201);
    expect(back.json().token_options.map((o: Json) => o.token)).toEqual(['ETH']);
    expect((await t.app.inject({ method: 'HEAD', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() })).statusCode).toBe(200);
  });

  it('never hands a payer an open payment the merchant made with the link\'s next order id: that number is passed over', async () => {
    const acct = await signupAccount(t.app);
    const link = await makeLink({ amount_usd: '25' }, acct.accessToken);
    // the dashboard's creation (no per-key rate limit to wait out), as a script of the merchant's could
    const byHand = (n: number) => inject({ method: 'POST', url: '/merchant/payments?mode=test', headers: tokenHeader(acct.accessToken), payload: { order_id: `link_${link.id}_${n}`, amount_usd: '99' } });
    expect((await byHand(1)).statusCode).toBe(201);
    const res = await pay(slugOf(link));
    expect(res.statusCode, res.body).toBe(201);
    expect([res.json().order_id, res.json().usd_amount]).toEqual([`link_${link.id}_2`, '25']);
    // a merchant who takes the next 20 numbers by hand: the payer is told to come back, given nothing
    for (let n = 3; n <= 22; n++) expect((await byHand(n)).statusCode).toBe(201);
    const taken = await pay(slugOf(link));
    expect([taken.statusCode, taken.json()]).toEqual([409, { error: "this link's next order ids are taken by open payments: try again later" }]);
    expect((await pay(slugOf(link))).json().order_id).toBe(`link_${link.id}_23`);
  });

  it('limits POST /l/{slug}/payments and the page together to 5 a second per IP: 429 `rate limit exceeded`', async () => {
    const link = await makeLink();
    const ip = randomIp();
    const codes: number[] = [];
    const refused = await clock.frozen(async () => {
      for (let i = 0; i < 4; i++) codes.push((await pay(slugOf(link), undefined, ip)).statusCode);
      codes.push((await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, remoteAddress: ip })).statusCode);
      return pay(slugOf(link), undefined, ip);
    });
    expect(codes).toEqual([201, 201, 201, 201, 303]);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'rate limit exceeded' });
    expect((await pay(slugOf(link))).statusCode).toBe(201);
  });

  // The page is opened by people, in a browser: its refusals are a page saying why, with the same
  // status (and Retry-After for the limit); a client asking for JSON still gets `{"error"}`.
  it('answers a browser the hosted page\'s refusals as a readable page with their status and message', async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const open = (slug: string, ip = randomIp()) => t.app.inject({ method: 'GET', url: `/l/${slug}`, headers: browser, remoteAddress: ip });
    const expectPage = (res: Awaited<ReturnType<typeof open>>, status: number, message: string) => {
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatch(/^<!doctype html>/i);
      expect(res.body).toContain(`<p class="status" role="alert">${message}</p>`);
    };
    expectPage(await open('nope'), 404, 'not found');
    const link = await makeLink();
    const ip = randomIp();
    const limited = await clock.frozen(async () => {
      for (let i = 0; i < 5; i++) expect((await pay(slugOf(link), undefined, ip)).statusCode).toBe(201);
      return open(slugOf(link), ip);
    });
    expectPage(limited, 429, 'rate limit exceeded');
    expect(limited.headers['retry-after']).toBe('1');
    const acct = await signupAccount(t.app);
    const btcOnly = await makeLink({ tokens: ['BTC'] }, acct.accessToken);
    await inject({ method: 'PATCH', url: '/merchant/settings', headers: tokenHeader(acct.accessToken), payload: { enabled_tokens: ['ETH'] } });
    expectPage(await open(slugOf(btcOnly)), 403, 'this link is not taking payments right now');
    await inject({ method: 'PATCH', url: `/merchant/links/${link.id}`, headers: tokenHeader(dev.accessToken), payload: { active: false } });
    expectPage(await open(slugOf(link)), 404, 'not found');
    const json = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, headers: { accept: 'application/json' }, remoteAddress: randomIp() });
    expect([json.statusCode, json.json()]).toEqual([404, { error: 'not found' }]);
  });

  it('counts the link\'s payments and confirmed volume from the outbox, once however often events are handed over', async () => {
    const acct = await signupAccount(t.app);
    const link = await makeLink({ amount_usd: '10.5' }, acct.accessToken);
    const a = (await pay(slugOf(link))).json();
    await pay(slugOf(link));
    // A /v1 payment that claims the link without one of its order ids does not count.
    await inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(acct.testKey), payload: { order_id: 'mine', amount_usd: '99', metadata: { link_id: link.id } } });
    await t.platform.outbox.drainNow();
    expect(await getLinkOf(acct, link.id)).toMatchObject({ payments: 2, volume_usd: '0.00' });
    await t.app.inject({ method: 'POST', url: `/v1/payments/${a.id}/token`, headers: keyHeader(acct.testKey), payload: { token: 'USDT_TRC20' } });
    await confirmPayment(t, acct.testKey, a.id);
    const counted = await getLinkOf(acct, link.id);
    expect(counted).toMatchObject({ payments: 2, volume_usd: '10.50' });
    expect((await linkEvents(link.id)).at(-1)).toEqual(counted);
    expect(await handGroupEventsAgain(t, [a.id])).toBeGreaterThanOrEqual(2);
    expect(await getLinkOf(acct, link.id)).toEqual(counted);
  });

  it('serves the hosted page: GET /l/{slug} makes a payment and answers 303 to its checkout page; a reload reuses it', async () => {
    const link = await makeLink();
    const ip = randomIp();
    const first = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, remoteAddress: ip });
    expect(first.statusCode).toBe(303);
    const location = String(first.headers.location);
    expect(location).toMatch(new RegExp(`^${t.config.checkoutUrl}/pay/[A-Za-z0-9_-]+$`));
    expect(first.headers['cache-control']).toBe('no-store');
    const cookie = String(first.headers['set-cookie']).split(';')[0];
    expect(String(first.headers['set-cookie'])).toContain(`Path=/l/${slugOf(link)}`);
    expect(String(first.headers['set-cookie'])).toContain('HttpOnly');
    const token = location.slice(location.lastIndexOf('/') + 1);
    const view = (await t.app.inject({ method: 'GET', url: `/checkout/${token}` })).json();
    expect(view.order_id).toBe(`link_${link.id}_1`);
    const page = await t.app.inject({ method: 'GET', url: location.replace(t.config.checkoutUrl!, '') });
    expect(page.statusCode).toBe(200);
    const again = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, headers: { cookie }, remoteAddress: randomIp() });
    expect(again.headers.location).toBe(location);
    const fresh = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() });
    expect(fresh.headers.location).not.toBe(location);
    // Still reused once the payer has paid part of it: a new payment would have them pay again.
    const coin = view.token_options[0].token;
    expect((await t.app.inject({ method: 'POST', url: `/checkout/${token}/token`, payload: { token: coin }, remoteAddress: randomIp() })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: `/checkout/${token}/simulate`, payload: { outcome: 'partially_paid' }, remoteAddress: randomIp() })).statusCode).toBe(200);
    const statusOf = async (tk: string) => {
      await t.services.payments.runDue();
      await t.platform.outbox.drainNow();
      return (await t.app.inject({ method: 'GET', url: `/checkout/${tk}` })).json().status;
    };
    expect(await statusOf(token)).toBe('partially_paid');
    const inProgress = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, headers: { cookie }, remoteAddress: randomIp() });
    expect(inProgress.headers.location).toBe(location);
    // Not once it is closed: the link makes a new one.
    const closedToken = String(fresh.headers.location).slice(String(fresh.headers.location).lastIndexOf('/') + 1);
    await t.app.inject({ method: 'POST', url: `/checkout/${closedToken}/token`, payload: { token: coin }, remoteAddress: randomIp() });
    expect((await t.app.inject({ method: 'POST', url: `/checkout/${closedToken}/simulate`, payload: { outcome: 'expired' }, remoteAddress: randomIp() })).statusCode).toBe(200);
    expect(await statusOf(closedToken)).toBe('expired');
    const afterClose = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, headers: { cookie: `link_${slugOf(link)}=${closedToken}` }, remoteAddress: randomIp() });
    expect(afterClose.statusCode).toBe(303);
    expect([location, fresh.headers.location]).not.toContain(afterClose.headers.location);
    // A remembered payment of another link is not reused.
    const other = await makeLink();
    const elsewhere = await t.app.inject({ method: 'GET', url: `/l/${slugOf(other)}`, headers: { cookie: `link_${slugOf(other)}=${token}` }, remoteAddress: randomIp() });
    expect(elsewhere.headers.location).not.toBe(location);
    const missing = await t.app.inject({ method: 'GET', url: '/l/unknown-slug', remoteAddress: randomIp() });
    expect(missing.statusCode).toBe(404);
  });

  it('marks the page\'s cookie Secure when the checkout page is served over https', async () => {
    const link = await makeLink();
    const plain = await t.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() });
    expect(String(plain.headers['set-cookie'])).not.toMatch(/;\s*Secure/i);
    const https = await startTestApp(h.db(), { env: { CHECKOUT_URL: 'https://pay.example' } });
    try {
      const res = await https.app.inject({ method: 'GET', url: `/l/${slugOf(link)}`, remoteAddress: randomIp() });
      expect(res.statusCode).toBe(303);
      expect(String(res.headers.location)).toMatch(/^https:\/\/pay\.example\/pay\//);
      expect(String(res.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await https.close();
    }
  });

  it('answers HEAD of the page without making a payment', async () => {
    const link = await makeLink();
    expect((await t.app.inject({ method: 'HEAD', url: `/l/${slugOf(link)}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'HEAD', url: '/l/unknown' })).statusCode).toBe(404);
    await t.platform.outbox.drainNow();
    expect((await getLink(link.id)).payments).toBe(0);
    const made = await h.db().orm.select().from(events).where(eq(events.type, 'payment.created'));
    expect(made.some((e) => (e.data as Json).order_id === `link_${link.id}_1`)).toBe(false);
  });

  async function getLinkOf(acct: Account, id: string): Promise<Json> {
    return (await inject({ method: 'GET', url: `/merchant/links/${id}`, headers: tokenHeader(acct.accessToken) })).json().link;
  }

});

describeEachDb('payment links without a checkout page', (h) => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp(h.db(), { env: { CHECKOUT_URL: '' } }); });
  afterAll(async () => { await t.close(); });

  it('has no url and no hosted page, and its payments no checkout_url', async () => {
    const acct = await signupAccount(t.app);
    const link = (await t.app.inject({ method: 'POST', url: '/merchant/links?mode=test', headers: tokenHeader(acct.accessToken), payload: { name: 'n', amount_usd: '5' } })).json().link;
    expect(link).not.toHaveProperty('url');
    const [{ slug }] = await h.db().orm.select().from(paymentLinks).where(eq(paymentLinks.id, link.id));
    const res = await t.app.inject({ method: 'POST', url: `/l/${slug}/payments`, remoteAddress: randomIp() });
    expect(res.statusCode).toBe(201);
    expect(res.json()).not.toHaveProperty('checkout_url');
    expect((await t.app.inject({ method: 'GET', url: `/l/${slug}`, remoteAddress: randomIp() })).statusCode).toBe(404);
  });
});
