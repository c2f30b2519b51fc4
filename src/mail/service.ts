// The e-mail room: queues mails of notifications from the outbox and sends them in the background.
// Without SMTP_URL nothing is queued and nothing runs; the start says so once.
import type { Platform } from '../platform/context.ts';
import { mailSubscriber } from './subscriber.ts';
import { MailWorker } from './worker.ts';
import { smtpSender, type SendMail } from './smtp.ts';
import { pruneMail } from './retention.ts';

export class MailService {
  readonly #platform: Platform;
  /** null without SMTP_URL. */
  readonly worker: MailWorker | null;

  constructor(platform: Platform, opts: { send?: SendMail; pollMs?: number } = {}) {
    this.#platform = platform;
    const { config, db, clock, log, outbox } = platform;
    if (config.mail === null) { this.worker = null; return; }
    this.worker = new MailWorker(db, clock, log, opts.send ?? smtpSender(config.mail), {
      messageIdHost: new URL(config.publicUrl).hostname || 'localhost', ...(opts.pollMs ? { pollMs: opts.pollMs } : {}),
    });
    const worker = this.worker;
    outbox.subscribe(mailSubscriber(config.publicUrl, () => worker.wake()));
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

  async stop(): Promise<void> {
    await this.worker?.stop();
  }
}
