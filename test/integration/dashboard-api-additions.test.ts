// The dashboard's additions to the API (README "Dashboard additions"): the chart's day-by-day
// series, the order_id / q / from / to filters of the payments list, and test payments made from
// the dashboard; each bad value answered with its exact message.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, keyHeader, signIn, signupAccount, tokenHeader, uid, type Account, type Member } from '../harness/accounts.ts';
import { createPayment, type Json } from '../harness/payments.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ANY_ROLE, DASHBOARD_ROUTES, SIMULATORS } from '../../src/accounts/index.ts';

const DAY = 86_400_000;

describeEachDb('dashboard API additions', (h) => {
  let t: TestApp;
  let acct: Account;
  let viewer: Member;
  // Noon UTC, so a few minutes of simulation never cross midnight.
  const clock = new ManualClock(new Date(Math.floor(Date.now() / DAY) * DAY + DAY / 2));
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock, env: { SIMULATION_STEP_MS: '10' } });
    acct = await signupAccount(t.app);
    viewer = await addMember(t.app, acct.accessToken, 'viewer');
  });
  afterAll(async () => { await t.close(); });

  /** Days pass on the clock here: sign in again so the 15-minute access tokens stay valid. */
  async function advance(ms: number): Promise<void> {
    clock.advance(ms);
    acct.accessToken = (await signIn(t.app, acct.email)).accessToken;
    viewer.accessToken = (await signIn(t.app, viewer.email)).accessToken;
  }

  const get = (url: string, token = acct.accessToken) => t.app.inject({ method: 'GET', url, headers: tokenHeader(token) });
  const today = () => clock.now().toISOString().slice(0, 10);
  const dayOf = (offset: number) => new Date(clock.now().getTime() + offset * DAY).toISOString().slice(0, 10);

  async function confirmed(body: Json): Promise<Json> {
    const p = await createPayment(t.app, acct.testKey, { ...body, simulate: 'confirmed' });
    for (let i = 0; i < 10; i++) { clock.advance(20); await t.services.payments.runDue(); }
    await advance(0);
    const after = (await get(`/merchant/payments/${p.id}`)).json();
    expect(after.status).toBe('confirmed');
    return after;
  }

  it('declares the new routes with their roles', () => {
    expect(DASHBOARD_ROUTES.get('GET /merchant/dashboard/series')?.roles).toEqual(ANY_ROLE);
    expect(DASHBOARD_ROUTES.get('POST /merchant/payments')?.roles).toEqual(SIMULATORS);
  });

  it('answers the series of every day of the span, by chain, with two-decimal dollars', async () => {
    await confirmed({ token: 'TRX', amount_usd: '10' });
    await advance(2 * DAY);
    await confirmed({ token: 'ETH', amount_usd: '25.5' });
    await confirmed({ token: 'USDT_ERC20', amount_usd: '14.5' });
    const s = (await get('/merchant/dashboard/series?mode=test&days=3')).json();
    expect(s).toMatchObject({ livemode: false, days: 3, from: dayOf(-2), to: today(), chains: ['ethereum', 'tron'] });
    expect(s.series).toEqual([
      { date: dayOf(-2), confirmed: 1, volume_usd: '10.00', by_chain: { tron: '10.00' } },
      { date: dayOf(-1), confirmed: 0, volume_usd: '0.00', by_chain: {} },
      { date: today(), confirmed: 2, volume_usd: '40.00', by_chain: { ethereum: '40.00' } },
    ]);
    // The last day agrees with the dashboard's own today figures.
    const fig = (await get('/merchant/dashboard?mode=test')).json();
    expect(fig.volume_usd_today).toBe('40.00');
    const dflt = (await get('/merchant/dashboard/series?mode=test')).json();
    expect(dflt.days).toBe(30);
    expect(dflt.series).toHaveLength(30);
    expect(dflt.series.at(-1).date).toBe(today());
    // Live mode has none of the test payments.
    const live = (await get('/merchant/dashboard/series?days=1', viewer.accessToken)).json();
    expect(live).toMatchObject({ livemode: true, chains: [], series: [{ date: today(), confirmed: 0, volume_usd: '0.00', by_chain: {} }] });
  });

  it('refuses a days value that is not 1 to 366', async () => {
    for (const bad of ['0', '367', 'abc', '1.5', '-3', '30d']) {
      const r = await get(`/merchant/dashboard/series?days=${bad}`);
      expect(r.statusCode).toBe(400);
      expect(r.json()).toEqual({ error: 'days must be a whole number from 1 to 366' });
    }
    expect((await get('/merchant/dashboard/series?days=366')).json().series).toHaveLength(366);
  });

  it('filters the list by exact order_id and by a search in order id, id, email and address', async () => {
    const tag = uid();
    const a = await createPayment(t.app, acct.testKey, { order_id: `INV-${tag}-1`, customer_email: `Buyer.${tag}@Example.com` });
    const b = await createPayment(t.app, acct.testKey, { order_id: `inv-${tag}-2` });
    await createPayment(t.app, acct.testKey, { order_id: `x100%_${tag}` });
    const ids = async (qs: string) => (await get(`/merchant/payments?mode=test&${qs}`)).json().payments.map((p: Json) => p.id);
    expect(await ids(`order_id=INV-${tag}-1`)).toEqual([a.id]);
    expect(await ids(`order_id=inv-${tag}-1`)).toEqual([]);
    expect((await ids(`q=inv-${tag}`)).sort()).toEqual([a.id, b.id].sort());
    expect(await ids(`q=buyer.${tag}@example`)).toEqual([a.id]);
    // The random end of the id (its start is a time, shared by payments made together).
    expect(await ids(`q=${a.id.slice(-12).toUpperCase()}`)).toEqual([a.id]);
    expect(await ids(`q=${encodeURIComponent(a.deposit_address)}`)).toEqual([a.id]);
    // LIKE wildcards in a search match themselves only.
    expect(await ids(`q=${encodeURIComponent(`%_${tag}`)}`)).toHaveLength(1);
    expect(await ids(`q=${encodeURIComponent(`${tag}%`)}`)).toEqual([]);
    const page = (await get(`/merchant/payments?mode=test&q=${tag}&limit=1`)).json();
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 0 });
  });

  it('filters by inclusive UTC days of creation and refuses bad dates', async () => {
    const tag = uid();
    const old = await createPayment(t.app, acct.testKey, { order_id: `old-${tag}` });
    await advance(DAY);
    const now = await createPayment(t.app, acct.testKey, { order_id: `new-${tag}` });
    const ids = async (qs: string) => (await get(`/merchant/payments?mode=test&q=${tag}&${qs}`)).json().payments.map((p: Json) => p.id);
    expect(await ids(`from=${today()}`)).toEqual([now.id]);
    expect(await ids(`to=${dayOf(-1)}`)).toEqual([old.id]);
    expect(await ids(`from=${dayOf(-1)}&to=${today()}`)).toEqual([now.id, old.id]);
    expect(await ids(`from=${dayOf(-1)}&to=${dayOf(-1)}`)).toEqual([old.id]);
    const bad = async (qs: string) => { const r = await get(`/merchant/payments?${qs}`); return [r.statusCode, r.json().error]; };
    expect(await bad('from=2026-02-30')).toEqual([400, 'from must be a date: 2006-01-02']);
    expect(await bad('to=yesterday')).toEqual([400, 'to must be a date: 2006-01-02']);
    expect(await bad('from=2026-03-02&to=2026-03-01')).toEqual([400, 'from must not be after to']);
    expect(await bad(`q=${'x'.repeat(201)}`)).toEqual([400, 'q must be at most 200 characters']);
    expect(await bad(`order_id=${'x'.repeat(201)}`)).toEqual([400, 'order_id must be at most 200 characters']);
    // The /v1 list takes the same filters.
    const v1 = await t.app.inject({ method: 'GET', url: `/v1/payments?order_id=new-${tag}`, headers: keyHeader(acct.testKey) });
    expect(v1.json().payments.map((p: Json) => p.id)).toEqual([now.id]);
  });

  it('makes a test payment from the dashboard, never a live one, and not for viewers', async () => {
    const body = { order_id: `dash-${uid()}`, amount_usd: '12', token: 'TRX' };
    const post = (url: string, token = acct.accessToken, payload: Json = body) => t.app.inject({ method: 'POST', url, headers: tokenHeader(token), payload });
    const made = await post('/merchant/payments?mode=test');
    expect(made.statusCode).toBe(201);
    expect(made.json()).toMatchObject({ livemode: false, order_id: body.order_id, usd_amount: '12', token: 'TRX', status: 'pending' });
    expect(made.json().store_id).toBeUndefined();
    const again = await post('/merchant/payments?mode=test');
    expect([again.statusCode, again.json().id]).toEqual([200, made.json().id]);
    const live = await post('/merchant/payments');
    expect([live.statusCode, live.json()]).toEqual([400, { error: 'only test payments can be made in the dashboard: add ?mode=test' }]);
    const viewerTry = await post('/merchant/payments?mode=test', viewer.accessToken);
    expect([viewerTry.statusCode, viewerTry.json()]).toEqual([403, { error: 'insufficient permissions' }]);
    const noOrder = await post('/merchant/payments?mode=test', acct.accessToken, { amount_usd: '12' });
    expect([noOrder.statusCode, noOrder.json()]).toEqual([400, { error: 'order_id is required' }]);
    // Audited as the team member who made it.
    const audit = (await get(`/merchant/audit?payment_id=${made.json().id}`)).json();
    expect(audit.entries[0]).toMatchObject({ action: 'payment.created', actor: { kind: 'merchant', id: acct.user.id } });
  });
});
