// The dashboard socket's side of notifications and the referral program (spec 6.3): `notification`
// to the roles of its category, `notification:read` to the reader's own sockets, and the
// affiliate:* events to owners and finance, all fed from the outbox by real changes.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { describeEachDb } from '../harness/databases.ts';
import { randomIp, signupAccount, type Account } from '../harness/accounts.ts';
import { codeOf, credit, liveDeposit } from '../harness/affiliate.ts';
import { raiseNotification, type Category } from '../../src/notifications/index.ts';
import { closeSockets, collect, connect, memberToken, next, sleep, startSocketApp, until, type SocketApp } from './realtime-support.ts';

const ROLES = ['owner', 'developer', 'finance', 'viewer'] as const;

describeEachDb('notifications and referral events on the dashboard socket', (h) => {
  let t: SocketApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startSocketApp(h.db());
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  afterEach(() => closeSockets());

  async function sockets(merchantId: string): Promise<Record<(typeof ROLES)[number], { s: Socket; token: string; userId: string }>> {
    const out = {} as Record<(typeof ROLES)[number], { s: Socket; token: string; userId: string }>;
    for (const role of ROLES) {
      const m = await memberToken(t, merchantId, role);
      const s = connect(`${t.url}/merchant`, { reconnection: false, auth: { token: m.token } });
      await next(s, 'session');
      out[role] = { s, token: m.token, userId: m.userId };
    }
    return out;
  }

  it('sends a notification to the roles of its category: affiliates to owners and finance, team to owners, the rest to everyone', async () => {
    const all = await sockets(acct.merchant.id);
    const got = Object.fromEntries(ROLES.map((r) => [r, collect<{ category: string; title: string }>(all[r].s, 'notification')]));
    for (const category of ['affiliates', 'team', 'payouts', 'support'] as Category[]) {
      await h.db().transaction((tx) => raiseNotification(tx, { merchantId: acct.merchant.id, category, livemode: false, title: category, body: 'b', at: new Date() }));
    }
    await until(() => got.viewer.length >= 2 && got.owner.length >= 4);
    await sleep(200);
    const seen = (r: (typeof ROLES)[number]) => got[r].map((n) => n.title);
    expect(seen('owner')).toEqual(['affiliates', 'team', 'payouts', 'support']);
    expect(seen('finance')).toEqual(['affiliates', 'payouts', 'support']);
    expect(seen('developer')).toEqual(['payouts', 'support']);
    expect(seen('viewer')).toEqual(['payouts', 'support']);
    expect(got.owner[2]).toMatchObject({ category: 'payouts', livemode: false, merchant_id: acct.merchant.id });
  });

  it('sends notification:read {ids, all, livemode, unread} to the reader\'s sockets only', async () => {
    const all = await sockets(acct.merchant.id);
    const second = connect(`${t.url}/merchant`, { reconnection: false, auth: { token: all.owner.token } });
    await next(second, 'session');
    const otherOwner = await memberToken(t, acct.merchant.id, 'owner');
    const bystander = connect(`${t.url}/merchant`, { reconnection: false, auth: { token: otherOwner.token } });
    await next(bystander, 'session');
    const heard = collect(bystander, 'notification:read');
    const n = await h.db().transaction((tx) => raiseNotification(tx, { merchantId: acct.merchant.id, category: 'payments', title: 'x', body: 'y', at: new Date() }));
    const mine = [next(all.owner.s, 'notification:read'), next(second, 'notification:read')];
    const res = await t.app.inject({
      method: 'POST', url: '/merchant/notifications/read', remoteAddress: randomIp(), headers: { authorization: `Bearer ${all.owner.token}` }, payload: { ids: [n.id] },
    });
    const { unread } = res.json();
    for (const p of mine) expect(await p).toEqual({ ids: [n.id], all: false, livemode: true, unread });
    await sleep(200);
    expect(heard).toEqual([]);
  });

  it('sends affiliate:referral, affiliate:commission, affiliate:balance and affiliate:payout to owners and finance only', async () => {
    const aff = await signupAccount(t.app);
    const all = await sockets(aff.merchant.id);
    const types = ['affiliate:referral', 'affiliate:commission', 'affiliate:balance', 'affiliate:payout'];
    const got = Object.fromEntries(ROLES.map((r) => {
      const list: string[] = [];
      all[r].s.onAny((event: string) => { if (types.includes(event)) list.push(event); });
      return [r, list];
    }));
    const referred = await signupAccount(t.app, { referral_code: await codeOf(h.db(), aff.merchant.id) });
    await liveDeposit(t, referred.merchant.id, '100');
    await credit(t, aff.merchant.id, '100');
    await t.app.inject({
      method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: { authorization: `Bearer ${aff.accessToken}` },
      payload: { token: 'USDT_TRC20', address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', password: aff.password },
    });
    const ok = await t.app.inject({
      method: 'POST', url: '/merchant/affiliate/payouts', remoteAddress: randomIp(), headers: { authorization: `Bearer ${all.finance.token}` }, payload: { amount: '60' },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    const expected = ['affiliate:referral', 'affiliate:commission', 'affiliate:balance', 'affiliate:balance', 'affiliate:payout', 'affiliate:balance'];
    await until(() => got.owner.length >= expected.length && got.finance.length >= expected.length);
    await sleep(200);
    expect(got.owner).toEqual(expected);
    expect(got.finance).toEqual(expected);
    expect(got.developer).toEqual([]);
    expect(got.viewer).toEqual([]);
  });
});
