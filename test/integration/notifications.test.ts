// In-dashboard notifications (CONTRACT.md "Notifications"): raised by the changes the contract
// lists, stored per merchant with categories, listed by mode and role, read marks per member.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { PASSWORD, randomIp, signupAccount, uid, type Account } from '../harness/accounts.ts';
import { ADDR, input, payment, type Member } from '../harness/settlement.ts';
import { admin, member } from '../harness/affiliate.ts';
import { raiseNotification } from '../../src/notifications/index.ts';
import { notifications } from '../../src/notifications/index.ts';

interface Note { id: string; title: string; category: string; livemode: boolean; body: string; subject?: string; read_at?: string }

describeEachDb('notifications', (h) => {
  let t: TestApp;
  let acct: Account;
  let owner: Member;
  let finance: Member;
  let developer: Member;
  let viewer: Member;

  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
    owner = { userId: acct.user.id, password: PASSWORD, token: async () => acct.accessToken };
    [finance, developer, viewer] = await Promise.all((['finance', 'developer', 'viewer'] as const).map((r) => member(t, acct.merchant.id, r)));
  });
  afterAll(async () => { await t.close(); });

  const call = async (m: Member, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${await m.token()}` }, remoteAddress: randomIp(), ...(payload === undefined ? {} : { payload: payload as object }) });
  const list = async (m: Member, q = ''): Promise<{ notifications: Note[]; total: number; unread: number; limit: number; offset: number }> => {
    const res = await call(m, 'GET', `/merchant/notifications${q}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const titles = async (m: Member, q = '') => (await list(m, q)).notifications.map((n) => n.title);
  const raise = (over: Partial<Parameters<typeof raiseNotification>[1]> = {}) => h.db().transaction((tx) => raiseNotification(tx, {
    merchantId: acct.merchant.id, category: 'payments', livemode: true, title: `t-${uid()}`, body: 'b', at: new Date(), ...over,
  }));

  describe('raised by the changes the contract lists', () => {
    it('live mode turned on and off (account, once per change)', async () => {
      await call(owner, 'POST', '/merchant/live', { enabled: true });
      await call(owner, 'POST', '/merchant/live', { enabled: true });
      await call(owner, 'POST', '/merchant/live', { enabled: false });
      const notes = (await list(viewer, '?category=account')).notifications;
      expect(notes.map((n) => [n.title, n.livemode])).toEqual([['Live mode turned off', true], ['Live mode turned on', true]]);
      expect(notes[1].body).toBe(`${acct.email} turned live mode on: live keys work and live payments can be made.`);
    });

    it('API keys created and revoked (security, belonging to no mode)', async () => {
      const key = (await call(developer, 'POST', '/merchant/api-keys?mode=test', { label: 'ci' })).json().api_key;
      await call(developer, 'DELETE', `/merchant/api-keys/${key.id}`);
      await call(developer, 'DELETE', `/merchant/api-keys/${key.id}`);
      const notes = (await list(viewer, '?category=security')).notifications;
      expect(notes.map((n) => [n.title, n.subject, n.livemode])).toEqual([['API key revoked', key.id, true], ['API key created', key.id, true]]);
      expect(notes[1].body).toBe(`The test API key "ci" ending in ${key.last4} was created.`);
      expect((await list(viewer, '?mode=test&category=security')).notifications).toEqual([]);
    });

    it('team members added, changed and removed (team: owners only)', async () => {
      const email = `m-${uid()}@example.com`;
      const user = (await call(owner, 'POST', '/merchant/users', { email, password: PASSWORD, role: 'viewer' })).json().user;
      await call(owner, 'PATCH', `/merchant/users/${user.id}`, { role: 'finance' });
      await call(owner, 'DELETE', `/merchant/users/${user.id}`);
      const notes = (await list(owner, '?category=team')).notifications.filter((n) => n.subject === user.id);
      expect(notes.map((n) => [n.title, n.body])).toEqual([
        ['Team member removed', `${email} was removed from the team.`],
        ['Team member changed', `${email} is now finance (was viewer).`],
        ['Team member added', `${email} joined the team as viewer.`],
      ]);
      for (const m of [finance, developer, viewer]) expect(await titles(m, '?category=team')).toEqual([]);
    });

    it('merchant payouts requested, approved, rejected and sent (payouts, live)', async () => {
      const address = (await call(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: PASSWORD })).json().address;
      await admin(t, 'POST', '/admin/ledger/adjustments', { merchant_id: acct.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '500', note: 'x' });
      const a = (await call(finance, 'POST', '/merchant/payouts', { address_id: address.id, amount: '100' })).json().payout;
      await admin(t, 'POST', `/admin/payouts/${a.id}/approve`);
      await admin(t, 'POST', `/admin/payouts/${a.id}/sent`, { tx_id: 'tx_sent' });
      const b = (await call(finance, 'POST', '/merchant/payouts', { address_id: address.id, amount: '50' })).json().payout;
      await admin(t, 'POST', `/admin/payouts/${b.id}/reject`, { note: 'checks' });
      const notes = (await list(viewer, '?category=payouts')).notifications.filter((n) => n.subject === a.id || n.subject === b.id);
      expect(notes.map((n) => [n.title, n.subject, n.livemode])).toEqual([
        ['Payout rejected', b.id, true], ['Payout requested', b.id, true], ['Payout sent', a.id, true], ['Payout approved', a.id, true], ['Payout requested', a.id, true],
      ]);
      expect(notes[2].body).toBe(`The payout of 100 USDT_TRC20 to ${ADDR.TRON} was sent (transaction tx_sent).`);
      expect(notes[0].body).toContain('rejected: checks');
    });

    it('a settlement that failed (payments, in its mode)', async () => {
      const m = await signupAccount(t.app);
      await t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: { authorization: `Bearer ${m.accessToken}` }, payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: PASSWORD } });
      const p = payment(m.merchant.id, { livemode: true });
      const [s] = await t.services.settlement.settle(h.db(), input(p, [{ amount: 20_000_000n, usd: '20', tx: 'tx_f' }]));
      expect(s.status).toBe('pending');
      await h.db().transaction((tx) => t.services.settlement.failSettlement(tx, s.id, 'the node refused the transfer'));
      const rows = await h.db().orm.select().from(notifications).where(and(eq(notifications.merchantId, m.merchant.id), eq(notifications.category, 'payments')));
      expect(rows.map((r) => [r.title, r.subject, r.livemode, r.body])).toEqual([
        ['Settlement failed', s.id, true, `The settlement of 20 USDT_TRC20 of payment ${p.id} could not be sent: the node refused the transfer.`],
      ]);
    });
  });

  describe('GET /merchant/notifications', () => {
    it('lists newest first by mode and category with total, unread, limit and offset', async () => {
      const m = await signupAccount(t.app);
      const me: Member = { userId: m.user.id, password: PASSWORD, token: async () => m.accessToken };
      const mk = (category: 'payments' | 'webhooks' | 'support', livemode: boolean, title: string) => h.db().transaction((tx) => raiseNotification(tx, {
        merchantId: m.merchant.id, category, livemode, title, body: `${title} body`, subject: 'pay_1', at: new Date(),
      }));
      await mk('payments', true, 'one');
      await mk('webhooks', false, 'two');
      await mk('webhooks', true, 'three');
      await mk('support', false, 'four');
      const all = await list(me);
      expect(all).toMatchObject({ total: 3, unread: 3, limit: 50, offset: 0 });
      expect(all.notifications.map((n) => n.title)).toEqual(['four', 'three', 'one']);
      expect(all.notifications[0]).toEqual({
        id: expect.stringMatching(/^ntf_/), merchant_id: m.merchant.id, livemode: true, category: 'support', title: 'four', body: 'four body',
        subject: 'pay_1', created_at: expect.any(String),
      });
      expect(await titles(me, '?mode=test')).toEqual(['two']);
      expect(await titles(me, '?category=webhooks')).toEqual(['three']);
      expect(await list(me, '?limit=1&offset=1')).toMatchObject({ total: 3, limit: 1, offset: 1, notifications: [{ title: 'three' }] });
      expect(await list(me, '?limit=500&offset=-1')).toMatchObject({ limit: 50, offset: 0 });
      for (const [q, error] of [
        ['?category=nope', 'category must be one of account, payments, webhooks, payouts, affiliates, support, team, security'],
        ['?unread=yes', 'unread must be true or false'],
      ]) {
        const res = await call(me, 'GET', `/merchant/notifications${q}`);
        expect([res.statusCode, res.json()]).toEqual([400, { error }]);
      }
    });

    it('shows a role only the categories it may see: affiliates to owners and finance, team to owners', async () => {
      const aff = await raise({ category: 'affiliates', title: 'aff' });
      const team = await raise({ category: 'team', title: 'team' });
      const pay = await raise({ category: 'payouts', title: 'pay' });
      const seen = async (m: Member) => {
        const ids = (await list(m)).notifications.map((n) => n.id);
        return [aff.id, team.id, pay.id].filter((id) => ids.includes(id));
      };
      expect(await seen(owner)).toEqual([aff.id, team.id, pay.id]);
      expect(await seen(finance)).toEqual([aff.id, pay.id]);
      expect(await seen(developer)).toEqual([pay.id]);
      expect(await seen(viewer)).toEqual([pay.id]);
      expect((await list(viewer, '?category=affiliates')).notifications).toEqual([]);
    });

    it('counts as unread only what the role may see (the dashboard badge never hints at hidden categories)', async () => {
      const m = await signupAccount(t.app);
      const me: Member = { userId: m.user.id, password: PASSWORD, token: async () => m.accessToken };
      const [fin, dev] = [await member(t, m.merchant.id, 'finance'), await member(t, m.merchant.id, 'developer')];
      const base = await Promise.all([me, fin, dev].map(async (x) => (await list(x)).unread));
      for (const category of ['affiliates', 'team', 'payouts'] as const) {
        await h.db().transaction((tx) => raiseNotification(tx, { merchantId: m.merchant.id, category, livemode: true, title: category, body: 'b', at: new Date() }));
      }
      const after = await Promise.all([me, fin, dev].map(async (x) => (await list(x)).unread));
      expect(after.map((n, i) => n - base[i])).toEqual([3, 2, 1]);
    });
  });

  describe('POST /merchant/notifications/read', () => {
    it('marks per member: {ids} in any mode, {all: true} in a mode (live by default); answers {unread}', async () => {
      const m = await signupAccount(t.app);
      const me: Member = { userId: m.user.id, password: PASSWORD, token: async () => m.accessToken };
      const other = await member(t, m.merchant.id, 'viewer');
      const mk = (livemode: boolean, title: string) => h.db().transaction((tx) => raiseNotification(tx, {
        merchantId: m.merchant.id, category: 'payments', livemode, title, body: 'b', at: new Date(),
      }));
      const [a, b, c] = [await mk(true, 'a'), await mk(true, 'b'), await mk(false, 'c')];
      const res = await call(me, 'POST', '/merchant/notifications/read', { ids: [a.id, c.id, 'ntf_unknown', 'x y'] });
      expect([res.statusCode, res.json()]).toEqual([200, { unread: 1 }]);
      const mine = (await list(me)).notifications;
      expect(mine.find((n) => n.id === a.id)!.read_at).toEqual(expect.any(String));
      expect(mine.find((n) => n.id === b.id)).not.toHaveProperty('read_at');
      expect((await list(me, '?unread=true')).notifications.map((n) => n.id)).toEqual([b.id]);
      expect((await list(me, '?mode=test')).unread).toBe(0);
      expect((await list(other)).unread).toBe(2);
      // marking again changes nothing
      expect((await call(me, 'POST', '/merchant/notifications/read', { ids: [a.id] })).json()).toEqual({ unread: 1 });
      expect((await call(other, 'POST', '/merchant/notifications/read', { all: true })).json()).toEqual({ unread: 0 });
      expect((await list(other, '?mode=test')).unread).toBe(1);
      expect((await call(other, 'POST', '/merchant/notifications/read', { all: true, livemode: false })).json()).toEqual({ unread: 0 });
      expect((await list(other, '?mode=test')).unread).toBe(0);
      expect((await list(me)).unread).toBe(1);
    });

    it('never marks what the reader may not see, nor another account\'s', async () => {
      const team = await raise({ category: 'team', title: 'secret' });
      const other = await signupAccount(t.app);
      const theirs = await h.db().transaction((tx) => raiseNotification(tx, { merchantId: other.merchant.id, category: 'payments', title: 'x', body: 'x', at: new Date() }));
      await call(viewer, 'POST', '/merchant/notifications/read', { ids: [team.id, theirs.id] });
      await call(viewer, 'POST', '/merchant/notifications/read', { all: true });
      const before = (await list(owner)).notifications.find((n) => n.id === team.id)!;
      expect(before).not.toHaveProperty('read_at');
      const res = await t.app.inject({ method: 'GET', url: '/merchant/notifications', remoteAddress: randomIp(), headers: { authorization: `Bearer ${other.accessToken}` } });
      expect(res.json().notifications.find((n: Note) => n.id === theirs.id)).not.toHaveProperty('read_at');
    });

    it('refuses a body that names nothing to mark', async () => {
      const msg = 'give ids (a list of up to 500 notification ids) or all: true';
      for (const [body, error] of [
        [{}, msg], [{ all: false }, msg], [{ ids: [] }, msg], [{ ids: 'ntf_1' }, msg], [{ ids: [1, 2] }, msg],
        [{ ids: Array.from({ length: 501 }, (_, i) => `ntf_${i}`) }, msg], [{ ids: ['x'.repeat(101)] }, msg], [[1], msg],
        [{ all: true, livemode: 'yes' }, 'livemode must be true or false'],
        [{ ids: ['ntf_1', 'ntf\u0000'] }, 'ids must not contain NUL characters'],
      ] as const) {
        const res = await call(viewer, 'POST', '/merchant/notifications/read', body);
        expect([res.statusCode, res.json()], JSON.stringify(body).slice(0, 80)).toEqual([400, { error }]);
      }
    });

    it('is open to every role', async () => {
      for (const m of [owner, finance, developer, viewer]) {
        expect((await call(m, 'GET', '/merchant/notifications')).statusCode).toBe(200);
        expect((await call(m, 'POST', '/merchant/notifications/read', { all: true })).statusCode).toBe(200);
      }
      const anon = await t.app.inject({ method: 'GET', url: '/merchant/notifications', remoteAddress: randomIp() });
      expect([anon.statusCode, anon.json()]).toEqual([401, { error: 'missing token' }]);
    });
  });
});
