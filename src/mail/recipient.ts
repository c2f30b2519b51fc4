// Whether a queued mail may still go, and to which address. A row is a copy made when its
// notification was dispatched; the team may have changed since (a retry can come a day later), so
// the worker asks again just before each attempt: the member still exists and is on the merchant's
// team, their role still sees the category, they still want such mail, the merchant is not
// suspended. A mail that may not go is dropped as `skipped`, the reason in last_error (README
// "E-mail"). The address is the member's at send time, not the copy's.
import { eq } from 'drizzle-orm';
import type { Database } from '../platform/db/index.ts';
import { merchants, users, type Role } from '../accounts/index.ts';
import { notifications, rolesOf } from '../notifications/index.ts';
import { preferencesFrom, wantsMail } from './preferences.ts';
import { mailPreferences, mailQueue } from './schema.ts';

export const SKIP_NOT_ON_TEAM = 'the member is no longer on the team';
export const SKIP_ROLE = "the member's role does not see this notification";
export const SKIP_UNWANTED = 'the member turned this mail off';
export const SKIP_SUSPENDED = 'the merchant is suspended';

export type Recipient = { address: string } | { skip: string };

export async function recipientNow(db: Database, mailId: string): Promise<Recipient> {
  const [r] = await db.orm.select({
    merchantId: mailQueue.merchantId, category: notifications.category, title: notifications.title, merchantStatus: merchants.status,
    user: { email: users.email, role: users.role, merchantId: users.merchantId }, pref: mailPreferences,
  }).from(mailQueue)
    .innerJoin(notifications, eq(notifications.id, mailQueue.notificationId))
    .innerJoin(merchants, eq(merchants.id, mailQueue.merchantId))
    .leftJoin(users, eq(users.id, mailQueue.userId))
    .leftJoin(mailPreferences, eq(mailPreferences.userId, mailQueue.userId))
    .where(eq(mailQueue.id, mailId)).limit(1);
  if (r?.merchantStatus === 'suspended') return { skip: SKIP_SUSPENDED };
  if (!r?.user || r.user.merchantId !== r.merchantId) return { skip: SKIP_NOT_ON_TEAM };
  if (!rolesOf(r.category).includes(r.user.role as Role)) return { skip: SKIP_ROLE };
  if (!wantsMail(preferencesFrom(r.pref), r.category, r.title)) return { skip: SKIP_UNWANTED };
  return { address: r.user.email };
}
