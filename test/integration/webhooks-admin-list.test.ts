// The operator's list of deliveries (CONTRACT.md operator API: GET /admin/deliveries ?status=failed
// across merchants) pages as the other operator lists do: limit and offset, with the total, so more
// failed deliveries than one page (at most 200) can all be reached.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inArray } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp } from '../harness/accounts.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { deliveries } from '../../src/webhooks/index.ts';
import { insertDeliveries } from '../../src/webhooks/delivery-store.ts';

const FAILED = 205;

describeEachDb('the operator\'s list of deliveries', (h) => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock('2026-03-06T15:30:00Z');
    t = await startTestApp(h.db(), { clock });
  });
  afterAll(async () => { await t.close(); });

  const list = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/admin/deliveries?${query}`, remoteAddress: randomIp(), headers: { authorization: 'Bearer test-admin-token' } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { deliveries: { id: string; merchant_id: string; status: string }[]; total: number; limit: number; offset: number };
  };

  /** Deliveries of two merchants a second apart, as the dispatcher queues them; the failed ones given up as the worker leaves them. */
  async function seed(): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < FAILED + 3; i++) {
      clock.advance(1000);
      const [row] = await insertDeliveries(h.db().orm, [{
        merchantId: i % 2 === 0 ? 'mer_a' : 'mer_b', livemode: true, target: 'account', url: 'https://hooks.example.com/x',
        paymentId: `pay_${i}`, eventId: `evt_${i}`, eventType: 'payment.failed', payload: '{}', at: clock.now(),
      }]);
      ids.push(row.id);
    }
    // the last three stay pending: the failed filter leaves them out of the list and the total
    await h.db().orm.update(deliveries).set({ status: 'failed', attempts: 7 }).where(inArray(deliveries.id, ids.slice(0, FAILED)));
    return ids.slice(0, FAILED).reverse();
  }

  it('pages failed deliveries past the first page with offset, answering the total', async () => {
    const newestFirst = await seed();
    const first = await list('status=failed&limit=200');
    expect([first.total, first.limit, first.offset]).toEqual([FAILED, 200, 0]);
    expect(first.deliveries.map((d) => d.id)).toEqual(newestFirst.slice(0, 200));
    const second = await list('status=failed&limit=200&offset=200');
    expect([second.total, second.limit, second.offset]).toEqual([FAILED, 200, 200]);
    expect(second.deliveries.map((d) => d.id)).toEqual(newestFirst.slice(200));
    expect(new Set(second.deliveries.map((d) => d.merchant_id))).toEqual(new Set(['mer_a', 'mer_b']));
    expect(second.deliveries.every((d) => d.status === 'failed')).toBe(true);
    // the list rule of the other operator lists: 50 by default, a bad limit or offset replaced
    const dflt = await list('status=failed&limit=0&offset=-3');
    expect([dflt.deliveries.length, dflt.limit, dflt.offset, dflt.total]).toEqual([50, 50, 0, FAILED]);
    const all = await list('');
    expect([all.total, all.deliveries.length]).toEqual([FAILED + 3, 50]);
    const past = await list('status=failed&offset=500');
    expect([past.deliveries, past.total]).toEqual([[], FAILED]);
  });

  it('keeps its status refusal', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/deliveries?status=lost', remoteAddress: randomIp(), headers: { authorization: 'Bearer test-admin-token' } });
    expect([res.statusCode, res.json()]).toEqual([400, { error: 'status must be one of pending, sending, delivered, failed, resolved' }]);
  });
});
