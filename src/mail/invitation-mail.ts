// The mail of an invitation (README "E-mail", "Invitations"): with SMTP configured, the invited
// address gets the accept link. It is queued in the invitation's own transaction (the accounts
// room's InvitationHook), so an invitation and its mail commit together. The body carries the
// one-time token, so it is stored sealed: AES-256-GCM under the webhook secrets' key
// (WEBHOOK_SECRET_KEY, which rotating AUTH_SECRET leaves alone) with a purpose of its own, the
// row's id as additional data; the worker opens it just before sending and the body is erased once
// the mail is sent or skipped (queue.ts). The subject (who invited, the merchant) is no secret.
import { eq } from 'drizzle-orm';
import type { Tx } from '../platform/db/index.ts';
import { newId } from '../platform/ids.ts';
import { SecretBox } from '../webhooks/index.ts';
import { acceptUrl, merchants, type InvitationHook, type InvitationSent } from '../accounts/index.ts';
import { mailQueue } from './schema.ts';
import { composeInvitationMail } from './compose.ts';

/** Seals and opens invitation mail bodies (`m1:`), each for its row's id. */
export function invitationBodies(webhookSecretKey: string): SecretBox {
  return new SecretBox(webhookSecretKey, { salt: 'gateway mail bodies', info: 'invitation mail body encryption v1' }, 'm1');
}

export function invitationMailHook(publicUrl: string, bodies: SecretBox, wake: () => void): InvitationHook {
  return {
    queue: (tx, s) => queueInvitationMail(tx, s, publicUrl, bodies),
    committed: wake,
  };
}

async function queueInvitationMail(tx: Tx, s: InvitationSent, publicUrl: string, bodies: SecretBox): Promise<void> {
  const inv = s.invitation;
  const [m] = await tx.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, inv.merchantId));
  const mail = composeInvitationMail({
    inviter: s.inviter.email ?? '', merchantName: m?.name ?? '', role: inv.role, link: acceptUrl(publicUrl, s.token), expiresAt: inv.expiresAt,
  });
  const id = newId('mail', s.at);
  await tx.insert(mailQueue).values({
    id, kind: 'invitation', invitationId: inv.id, merchantId: inv.merchantId, toAddress: inv.email,
    subject: mail.subject, body: bodies.seal(mail.body, id), status: 'pending', attempts: 0, nextAttemptAt: s.at, createdAt: s.at,
  });
}
