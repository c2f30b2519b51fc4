// Payments fixtures for integration tests: create payments through /v1 and read them back.
import type { FastifyInstance, InjectOptions } from 'fastify';
import { and, eq, inArray } from 'drizzle-orm';
import { keyHeader, randomIp, uid } from './accounts.ts';
import type { TestApp } from './app.ts';
import { events, type StoredEvent } from '../../src/events/index.ts';
import { payments } from '../../src/payments/index.ts';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies of any shape

export async function createPayment(app: FastifyInstance, key: string, body: Json = {}): Promise<Json> {
  const res = await app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(key), payload: { order_id: `o-${uid()}`, amount_usd: '25', token: 'ETH', ...body } });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function getPayment(app: FastifyInstance, key: string, id: string): Promise<Json> {
  const res = await app.inject({ method: 'GET', url: `/v1/payments/${id}`, headers: keyHeader(key) });
  if (res.statusCode !== 200) throw new Error(`read failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** An inject from its own client address, so per-IP limits never collide between tests. */
export const fromIp = (opts: InjectOptions): InjectOptions => ({ remoteAddress: randomIp(), ...opts });

/** Simulates `confirmed` on a test payment (its coin already chosen) and runs timers and the outbox until it is. */
export async function confirmPayment(t: TestApp, key: string, paymentId: string): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: `/v1/payments/${paymentId}/simulate`, headers: keyHeader(key), payload: { outcome: 'confirmed' } });
  if (res.statusCode !== 200) throw new Error(`simulate failed: ${res.statusCode} ${res.body}`);
  // The status is read from the table, not through /v1: twenty reads in a second would meet the
  // key's own rate limit (spec 8: 20 requests a second) on a fast machine.
  for (let i = 0; i < 20; i++) {
    await t.services.payments.runDue();
    await t.platform.outbox.drainNow();
    const [row] = await t.platform.db.orm.select({ status: payments.status }).from(payments).where(eq(payments.id, paymentId));
    if (row?.status === 'confirmed') break;
  }
  await t.platform.outbox.drainNow();
}

/** Hands these payments' created and confirmed events to the payment groups once more (a batch handed over twice). */
export async function handGroupEventsAgain(t: TestApp, paymentIds: string[]): Promise<number> {
  const db = t.platform.db;
  const batch: StoredEvent[] = await db.orm.select().from(events)
    .where(and(inArray(events.paymentId, paymentIds), inArray(events.type, ['payment.created', 'payment.confirmed'])));
  await db.transaction((tx) => t.services.payments.groups.subscriber.handle(tx, batch));
  return batch.length;
}
