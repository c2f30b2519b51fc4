// Fixtures of the watcher tests on anvil: a pass of the chain watchers followed by the outbox, the
// events a payment raised, and a wait for a condition over watcher passes (blocks mined on demand).
import { and, asc, eq } from 'drizzle-orm';
import type { ChainApp } from './chain-send.ts';
import { getPayment, type Json } from './payments.ts';
import { events } from '../../src/events/index.ts';

/** One pass of every chain watcher of the app, then the outbox handed on (settlement, webhooks). */
export async function watchOnce(t: ChainApp): Promise<void> {
  await t.services.watching.runOnce();
  await t.platform.outbox.drainNow();
}

/** The types of the events a payment raised, oldest first. */
export async function eventTypes(t: ChainApp, paymentId: string): Promise<string[]> {
  const rows = await t.platform.db.orm.select({ type: events.type }).from(events).where(eq(events.paymentId, paymentId)).orderBy(asc(events.seq));
  return rows.map((r) => r.type);
}

/** The data of a payment's events of one type, oldest first. */
export async function eventsOf(t: ChainApp, paymentId: string, type: string): Promise<Json[]> {
  const rows = await t.platform.db.orm.select({ data: events.data }).from(events)
    .where(and(eq(events.paymentId, paymentId), eq(events.type, type))).orderBy(asc(events.seq));
  return rows.map((r) => r.data as Json);
}

export async function paymentNow(t: ChainApp, key: string, id: string): Promise<Json> {
  return getPayment(t.app, key, id);
}
