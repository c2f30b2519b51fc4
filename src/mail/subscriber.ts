// The outbox subscriber that turns notifications into queued e-mails. It runs in the dispatch
// transaction, as webhook deliveries are queued: a notification and its `notification` event
// commit together, and the mails of that event commit with its dispatch mark, so a mail is never
// lost between the two; unique (notification_id, user_id) makes a batch handed over twice queue
// each mail once. Only live notifications are mailed, only to members whose role sees the category.
import { and, eq, inArray } from 'drizzle-orm';
import type { StoredEvent, Subscriber } from '../events/index.ts';
import type { Tx } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { NOTIFICATION_EVENT, rolesOf, type NotificationJson } from '../notifications/index.ts';
import { merchants, users } from '../accounts/index.ts';
import { preferencesFrom, wantsMail } from './preferences.ts';
import { mailPreferences, mailQueue } from './schema.ts';
import { composeMail } from './compose.ts';

export function mailSubscriber(publicUrl: string, wake: () => void): Subscriber {
  let queued = false;
  return {
    name: 'notification-mail',
    wants: (e) => e.type === NOTIFICATION_EVENT && e.livemode,
    async handle(tx: Tx, batch: StoredEvent[]): Promise<void> {
      for (const e of batch) {
        if (e.type !== NOTIFICATION_EVENT || !e.livemode || !e.data) continue;
        if (await queueMails(tx, e.data as NotificationJson, publicUrl, e.createdAt) > 0) queued = true;
      }
    },
    afterCommit(): void {
      if (!queued) return;
      queued = false;
      wake();
    },
  };
}

async function queueMails(tx: Tx, n: NotificationJson, publicUrl: string, at: Date): Promise<number> {
  const members = await tx.select({ id: users.id, email: users.email, pref: mailPreferences }).from(users)
    .leftJoin(mailPreferences, eq(mailPreferences.userId, users.id))
    .where(and(eq(users.merchantId, n.merchant_id), inArray(users.role, [...rolesOf(n.category)])));
  const to = members.filter((m) => wantsMail(preferencesFrom(m.pref), n.category, n.title));
  if (to.length === 0) return 0;
  const [m] = await tx.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, n.merchant_id));
  const mail = composeMail(n, m?.name ?? '', publicUrl);
  const rows = await tx.insert(mailQueue).values(to.map((u) => ({
    id: newId('mail', at), kind: 'notification' as const, notificationId: n.id, merchantId: n.merchant_id, userId: u.id, toAddress: u.email,
    subject: mail.subject, body: mail.body, status: 'pending', attempts: 0, nextAttemptAt: at, createdAt: at,
  }))).onConflictDoNothing().returning({ id: mailQueue.id });
  return rows.length;
}
