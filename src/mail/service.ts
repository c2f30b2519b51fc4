// The e-mail room: queues mails of notifications from the outbox, and of invitations in their own
// transaction, and sends them in the background. Without SMTP_URL nothing is queued and nothing
// runs; the start says so once.
import type { Platform } from '../platform/context.ts';
import { mailSubscriber } from './subscriber.ts';
import { MailWorker } from './worker.ts';
import { smtpSender, type SendMail } from './smtp.ts';
import { pruneMail } from './retention.ts';
import { oneOfFilter } from '../platform/fields.ts';
import type { Actor } from '../audit/index.ts';
import { MAIL_STATUSES, type MailRow } from './schema.ts';
import { MAIL_STATUS_INVALID, mailForOperator, retryMail } from './operator.ts';
import { invitationBodies, invitationMailHook } from './invitation-mail.ts';
import type { InvitationHook } from '../accounts/index.ts';

export class MailService {
  readonly #platform: Platform;
  /** null without SMTP_URL. */
  readonly worker: MailWorker | null;
  /** The invitee's mail, joined to each invitation's transaction (AccountsService.useInvitationHook); null without SMTP_URL. */
  readonly invitations: InvitationHook | null = null;

  constructor(platform: Platform, opts: { send?: SendMail; pollMs?: number } = {}) {
    this.#platform = platform;
    const { config, db, clock, log, outbox } = platform;
    if (config.mail === null) { this.worker = null; return; }
    const bodies = invitationBodies(config.webhookSecretKey);
    this.worker = new MailWorker(db, clock, log, opts.send ?? smtpSender(config.mail), {
      messageIdHost: new URL(config.publicUrl).hostname || 'localhost', ...(opts.pollMs ? { pollMs: opts.pollMs } : {}),
    }, bodies);
    const worker = this.worker;
    outbox.subscribe(mailSubscriber(config.publicUrl, () => worker.wake()));
    this.invitations = invitationMailHook(config.publicUrl, bodies, () => worker.wake());
  }

  start(): void {
    const { config, log } = this.#platform;
    if (this.worker === null) {
      log.info('SMTP_URL is not set: no e-mail is sent');
      return;
    }
    log.info({ smtp_host: config.mail!.host, smtp_port: config.mail!.port }, 'e-mail is sent through SMTP');
    this.worker.start();
  }

  /** Deletes sent, skipped and failed rows past keeping (retention.ts); runs with or without SMTP_URL. */
  async prune(): Promise<number> {
    return pruneMail(this.#platform.db, this.#platform.clock.now());
  }

  /** The operator lists every merchant's mails (`status` filter), newest first, a page at a time. */
  forOperator(status: unknown, limit: number, offset: number): Promise<{ mail: MailRow[]; total: number }> {
    return mailForOperator(this.#platform.db.orm, oneOfFilter(status, MAIL_STATUSES, MAIL_STATUS_INVALID), limit, offset);
  }

  /** The operator sends a failed mail again: the worker is woken once it is due (without SMTP_URL it waits for one). */
  async retry(id: string, actor: Actor): Promise<MailRow> {
    const { db, clock } = this.#platform;
    const row = await db.transaction((tx) => retryMail(tx, id, actor, clock.now()));
    this.worker?.wake();
    return row;
  }

  async stop(): Promise<void> {
    await this.worker?.stop();
  }
}
