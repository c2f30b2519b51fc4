// The team's notifications of account changes (CONTRACT.md "Notifications"): live mode turned on
// or off, API keys created or revoked, members added, changed or removed. Raised in the
// transaction of the change.
import type { Executor } from '../platform/db/index.ts';
import { raiseNotification } from '../notifications/index.ts';
import type { ApiKeyRow, UserRow } from './schema.ts';

export async function noticeLiveMode(tx: Executor, merchantId: string, enabled: boolean, by: string | undefined, at: Date): Promise<void> {
  const who = by ?? 'The owner';
  await raiseNotification(tx, {
    merchantId, category: 'account', at, subject: merchantId,
    ...(enabled
      ? { title: 'Live mode turned on', body: `${who} turned live mode on: live keys work and live payments can be made.` }
      : { title: 'Live mode turned off', body: `${who} turned live mode off: new live payments are refused; open ones still complete.` }),
  });
}

export async function noticeApiKey(tx: Executor, k: ApiKeyRow, verb: 'created' | 'revoked', at: Date): Promise<void> {
  const label = k.label ? ` "${k.label}"` : '';
  await raiseNotification(tx, {
    merchantId: k.merchantId, category: 'security', title: `API key ${verb}`, subject: k.id, at,
    body: `The ${k.livemode ? 'live' : 'test'} API key${label} ending in ${k.last4} was ${verb}.`,
  });
}

export type TeamChange = { verb: 'added' } | { verb: 'removed' } | { verb: 'role_changed'; from: string };

export async function noticeTeam(tx: Executor, u: UserRow, change: TeamChange, at: Date): Promise<void> {
  const n = change.verb === 'added' ? { title: 'Team member added', body: `${u.email} joined the team as ${u.role}.` }
    : change.verb === 'removed' ? { title: 'Team member removed', body: `${u.email} was removed from the team.` }
      : { title: 'Team member changed', body: `${u.email} is now ${u.role} (was ${change.from}).` };
  await raiseNotification(tx, { merchantId: u.merchantId, category: 'team', subject: u.id, at, ...n });
}
