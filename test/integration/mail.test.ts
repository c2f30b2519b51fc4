// E-mail of notifications (README "E-mail"): a referral payout requested through the API is
// mailed to every owner and finance member over a real SMTP server (test/harness/smtp.ts); a
// member's preference turns it off; a refusing or unreachable server means a retry with backoff and
// a later delivery, up to a bounded number of attempts; a crash after the send sends it again with
// the same Message-ID (at least once); without SMTP_URL nothing is queued or sent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, type Account } from '../harness/accounts.ts';
import { ADDR, addMember, type Member } from '../harness/settlement.ts';
import { credit, member } from '../harness/affiliate.ts';
import { SmtpTestServer } from '../harness/smtp.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { MAIL_FAILED_KEPT_DAYS, MAIL_MAX_ATTEMPTS, MAIL_RETRY_DELAYS_S, MAIL_SENT_KEPT_DAYS, mailQueue } from '../../src/mail/index.ts';
import { claimDueMail } from '../../src/mail/queue.ts';
import { MailWorker } from '../../src/mail/worker.ts';
import { users } from '../../src/accounts/index.ts';
import { committedMeanwhile } from '../harness/lock-waits.ts';

const FRIDAY = '2026-03-06T15:30:00Z';
const SMTP_PASSWORD = 'smtp-secret-Zq81';
const CATEGORIES = 'categories must be a list of notification categories your role sees';

interface Team { acct: Account; owner: Member; finance: Member; developer: Member; viewer: Member }

/** Log lines the app wrote, as text. */
function logSink(): { log: ReturnType<typeof createLogger>; lines: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } });
  return { log: createLogger('info', stream), lines: () => chunks.join('') };
}

describeEachDb('e-mail of notifications', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  let smtp: SmtpTestServer;
  let sink: ReturnType<typeof logSink>;

  beforeAll(async () => {
    smtp = await new SmtpTestServer().listen();
    clock = new ManualClock(FRIDAY);
    sink = logSink();
    t = await startTestApp(h.db(), { clock, log: sink.log, env: { SMTP_URL: smtp.url('gw', SMTP_PASSWORD), MAIL_FROM: 'Gateway <gateway@example.test>' } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(async () => {
    smtp.refuse = null;
    smtp.messages.length = 0;
    // every test starts with nothing due: what an earlier one left is given up
    await h.db().orm.update(mailQueue).set({ status: 'failed' }).where(eq(mailQueue.status, 'pending'));
  });

  const send = async (m: Member, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.app.inject({
      method, url, remoteAddress: randomIp(), headers: { authorization: `Bearer ${await m.token()}`, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  async function team(signup: Record<string, unknown> = {}): Promise<Team> {
    const acct = await signupAccount(t.app, { merchant_name: 'Acme Mail', ...signup });
    const id = acct.merchant.id;
    const [owner, finance, developer, viewer] = await Promise.all((['owner', 'finance', 'developer', 'viewer'] as const).map((r) => member(t, id, r)));
    const res = await send(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
    expect(res.statusCode, res.body).toBe(201);
    await credit(t, id, '1000');
    return { acct, owner, finance, developer, viewer };
  }
  const emailOf = async (userId: string) => (await h.db().orm.select({ e: users.email }).from(users).where(eq(users.id, userId)))[0].e;
  async function requestPayout(m: Member): Promise<string> {
    clock.advance(1000);
    const res = await send(m, 'POST', '/merchant/affiliate/payouts', { amount: '100' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().payout.id;
  }
  /** The outbox hands the notification over (mails are queued), then the worker sends what is due. */
  async function deliver(): Promise<number> {
    await t.platform.outbox.drainNow();
    return t.services.mail.worker!.runDue();
  }
  const recipients = () => smtp.messages.flatMap((m) => m.to).sort();
  const rowsOf = (merchantId: string) => h.db().orm.select().from(mailQueue).where(eq(mailQueue.merchantId, merchantId));

  it('mails "Payout requested" of a referral payout to every owner and finance member, through the SMTP server, authenticated', async () => {
    const a = await team();
    await requestPayout(a.finance);
    expect(await deliver()).toBe(3);
    const expected = [a.acct.email, await emailOf(a.owner.userId), await emailOf(a.finance.userId)].sort();
    expect(recipients()).toEqual(expected);
    const m = smtp.messages[0];
    expect([m.user, m.pass, m.from]).toEqual(['gw', SMTP_PASSWORD, 'gateway@example.test']);
    expect(m.data).toMatch(/^Subject: Payout requested \(Acme Mail\)$/m);
    expect(m.data).toMatch(/^From: Gateway <gateway@example\.test>$/m);
    // quoted-printable: soft line breaks joined again
    expect(m.data.replace(/=\r\n/g, '')).toContain(`A referral payout of 100 USDT_TRC20 to ${ADDR.TRON} was requested; it is due by`);
    const rows = await rowsOf(a.acct.merchant.id);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['sent', 1], ['sent', 1], ['sent', 1]]);
    // the message id is the row's: the same on every attempt of it
    expect(smtp.messages.map((x) => /^Message-ID: <([^@]+)@/mi.exec(x.data)?.[1]).sort()).toEqual(rows.map((r) => r.id).sort());
    // the developer and the viewer never see referral notifications, and are not mailed them
    expect(recipients()).not.toContain(await emailOf(a.developer.userId));
  });

  describe('checked again at send time: a queued mail goes only to whom it still may', () => {
    /** Queues the referral mail of a payout (3 rows: the account's owner, owner, finance), sending nothing yet. */
    async function queued(): Promise<Team> {
      const a = await team();
      await requestPayout(a.finance);
      await t.platform.outbox.drainNow();
      expect(await rowsOf(a.acct.merchant.id)).toHaveLength(3);
      return a;
    }
    const financeRow = async (a: Team) => (await rowsOf(a.acct.merchant.id)).find((r) => r.userId === a.finance.userId)!;

    it('a member removed from the team after it was queued is not mailed (skipped, with why)', async () => {
      const a = await queued();
      const financeMail = await emailOf(a.finance.userId);
      const res = await t.app.inject({ method: 'DELETE', url: `/merchant/users/${a.finance.userId}`, remoteAddress: randomIp(), headers: { authorization: `Bearer ${await a.owner.token()}` } });
      expect(res.statusCode, res.body).toBe(200);
      await deliver();
      expect(recipients()).toEqual([a.acct.email, await emailOf(a.owner.userId)].sort());
      expect(recipients()).not.toContain(financeMail);
      const row = await financeRow(a);
      expect([row.status, row.lastError]).toEqual(['skipped', 'the member is no longer on the team']);
    });

    it('a member whose new role does not see the category is not mailed', async () => {
      const a = await queued();
      const res = await send(a.owner, 'PATCH', `/merchant/users/${a.finance.userId}`, { role: 'developer' });
      expect(res.statusCode, res.body).toBe(200);
      await deliver();
      expect(recipients()).toEqual([a.acct.email, await emailOf(a.owner.userId)].sort());
      const row = await financeRow(a);
      expect([row.status, row.lastError]).toEqual(['skipped', "the member's role does not see this notification"]);
    });

    it('a member who turned the mail off after it was queued is not mailed', async () => {
      const a = await queued();
      const res = await send(a.finance, 'PATCH', '/merchant/me/email-notifications', { referral_payout_requested: false });
      expect(res.statusCode, res.body).toBe(200);
      await deliver();
      expect(recipients()).toEqual([a.acct.email, await emailOf(a.owner.userId)].sort());
      expect((await financeRow(a)).status).toBe('skipped');
    });

    it('nobody of a merchant suspended after it was queued is mailed', async () => {
      const a = await queued();
      const res = await t.app.inject({ method: 'PATCH', url: `/admin/merchants/${a.acct.merchant.id}`, headers: { authorization: 'Bearer test-admin-token' }, payload: { status: 'suspended' }, remoteAddress: randomIp() });
      expect(res.statusCode, res.body).toBe(200);
      await deliver();
      expect(smtp.messages).toHaveLength(0);
      const rows = await rowsOf(a.acct.merchant.id);
      expect(rows.map((r) => [r.status, r.lastError])).toEqual(Array(3).fill(['skipped', 'the merchant is suspended']));
    });

    it("goes to the member's address at send time, not the one when it was queued", async () => {
      const a = await queued();
      // no route changes a member's address today; the worker must not trust the queued copy if one does
      await h.db().orm.update(users).set({ email: 'finance-new@example.test' }).where(eq(users.id, a.finance.userId));
      await deliver();
      expect(recipients()).toContain('finance-new@example.test');
      expect((await financeRow(a)).toAddress).toBe('finance-new@example.test');
    });
  });

  it("goes to the account's address as one address: a comma in it does not make it a list that reaches someone else", async () => {
    // the signup's address check lets a comma through; nodemailer would read "shop,victim@…" as two
    // addresses and mail only victim@…, who never signed up
    const victim = `victim-${Date.now()}@example.test`;
    const a = await team({ email: `shop,${victim}` });
    await requestPayout(a.finance);
    await deliver();
    expect(recipients()).not.toContain(victim);
    expect(recipients()).toContain(`"shop,${victim.split('@')[0]}"@example.test`);
  });

  it(`prunes sent and skipped rows ${MAIL_SENT_KEPT_DAYS} days after, failed ones ${MAIL_FAILED_KEPT_DAYS} days after`, async () => {
    const DAY = 86_400_000;
    const a = await team();
    // one sent, one skipped (its member removed), one given up: the owner's address refuses
    await requestPayout(a.finance);
    await t.platform.outbox.drainNow();
    const ownerMail = await emailOf(a.owner.userId);
    await h.db().orm.update(mailQueue).set({ status: 'failed', nextAttemptAt: clock.now() }).where(eq(mailQueue.toAddress, ownerMail));
    const removed = await t.app.inject({ method: 'DELETE', url: `/merchant/users/${a.finance.userId}`, remoteAddress: randomIp(), headers: { authorization: `Bearer ${await a.owner.token()}` } });
    expect(removed.statusCode, removed.body).toBe(200);
    await deliver();
    const statuses = async () => (await rowsOf(a.acct.merchant.id)).map((r) => r.status).sort();
    expect(await statuses()).toEqual(['failed', 'sent', 'skipped']);
    clock.advance(MAIL_SENT_KEPT_DAYS * DAY);
    await t.services.mail.prune();
    expect(await statuses()).toEqual(['failed', 'sent', 'skipped']);
    clock.advance(1000);
    await t.services.mail.prune();
    expect(await statuses()).toEqual(['failed']);
    clock.advance((MAIL_FAILED_KEPT_DAYS - MAIL_SENT_KEPT_DAYS) * DAY);
    await t.services.mail.prune();
    expect(await statuses()).toEqual([]);
  });

  it('is not mailed again when the outbox hands the same notification over twice, nor when nothing is due', async () => {
    const a = await team();
    await requestPayout(a.owner);
    await deliver();
    expect(await deliver()).toBe(0);
    expect(smtp.messages).toHaveLength(3);
  });

  it('a member turns it off for themselves (GET/PATCH /merchant/me/email-notifications); the others still get it', async () => {
    const a = await team();
    expect((await send(a.finance, 'GET', '/merchant/me/email-notifications')).json())
      .toEqual({ email_notifications: { referral_payout_requested: true, categories: [] } });
    const res = await send(a.finance, 'PATCH', '/merchant/me/email-notifications', { referral_payout_requested: false });
    expect([res.statusCode, res.json()]).toEqual([200, { email_notifications: { referral_payout_requested: false, categories: [] } }]);
    expect((await send(a.finance, 'GET', '/merchant/me/email-notifications')).json().email_notifications.referral_payout_requested).toBe(false);
    await requestPayout(a.finance);
    await deliver();
    expect(recipients()).toEqual([a.acct.email, await emailOf(a.owner.userId)].sort());
  });

  it('a member turns on a whole category their role sees: every notification of it is mailed (paid, rejected too)', async () => {
    const a = await team();
    await send(a.owner, 'PATCH', '/merchant/me/email-notifications', { referral_payout_requested: false, categories: ['affiliates'] });
    const payoutId = await requestPayout(a.finance);
    const res = await t.app.inject({ method: 'POST', url: `/admin/affiliate/payouts/${payoutId}/reject`, headers: { authorization: 'Bearer test-admin-token' }, payload: { note: 'wrong address' }, remoteAddress: randomIp() });
    expect(res.statusCode, res.body).toBe(200);
    await deliver();
    const ownerMail = await emailOf(a.owner.userId);
    const toOwner = smtp.messages.filter((m) => m.to.includes(ownerMail)).map((m) => /^Subject: (.*)$/m.exec(m.data)?.[1]);
    expect(toOwner.sort()).toEqual(['Payout rejected (Acme Mail)', 'Payout requested (Acme Mail)']);
  });

  it('refuses a preference it cannot keep, with exact messages', async () => {
    const a = await team();
    const bad = async (m: Member, body: unknown, error: string) => {
      const res = await send(m, 'PATCH', '/merchant/me/email-notifications', body);
      expect([res.statusCode, res.json()]).toEqual([400, { error }]);
    };
    await bad(a.owner, {}, 'nothing to update');
    await bad(a.owner, { referral_payout_requested: 'no' }, 'referral_payout_requested must be true or false');
    await bad(a.owner, { categories: ['spam'] }, CATEGORIES);
    await bad(a.developer, { categories: ['affiliates'] }, CATEGORIES);
    await bad(a.viewer, { categories: 'payments' }, CATEGORIES);
    await bad(a.finance, { categories: ['team'] }, CATEGORIES);
    // a category the role sees is kept, once, in the list's order
    const ok = await send(a.developer, 'PATCH', '/merchant/me/email-notifications', { categories: ['webhooks', 'payments', 'webhooks'] });
    expect(ok.json()).toEqual({ email_notifications: { referral_payout_requested: true, categories: ['payments', 'webhooks'] } });
  });

  // The choice is the member's own; their role may change under it. They see and set the categories
  // of their role now; those of another role stay stored, for when the role comes back.
  it('after a role change: shows and takes the categories of the new role, keeps the others for the old one', async () => {
    const a = await team();
    let me = a.finance;
    const prefs = async () => (await send(me, 'GET', '/merchant/me/email-notifications')).json().email_notifications;
    // a role change ends the member's sessions: they sign in again
    const role = async (r: 'developer' | 'finance') => {
      expect((await send(a.owner, 'PATCH', `/merchant/users/${me.userId}`, { role: r })).statusCode).toBe(200);
      me = await addMember(t, a.acct.merchant.id, r, me.userId);
    };
    expect((await send(me, 'PATCH', '/merchant/me/email-notifications', { categories: ['affiliates', 'payments'] })).statusCode).toBe(200);
    await role('developer');
    expect(await prefs()).toEqual({ referral_payout_requested: true, categories: ['payments'] });
    // what the page saves: the flag and the categories it was shown, one ticked more
    const res = await send(me, 'PATCH', '/merchant/me/email-notifications', { referral_payout_requested: false, categories: ['payments', 'webhooks'] });
    expect([res.statusCode, res.json()]).toEqual([200, { email_notifications: { referral_payout_requested: false, categories: ['payments', 'webhooks'] } }]);
    expect(await prefs()).toEqual({ referral_payout_requested: false, categories: ['payments', 'webhooks'] });
    const refused = await send(me, 'PATCH', '/merchant/me/email-notifications', { categories: ['affiliates'] });
    expect([refused.statusCode, refused.json()]).toEqual([400, { error: CATEGORIES }]);
    await role('finance');
    expect(await prefs()).toEqual({ referral_payout_requested: false, categories: ['payments', 'webhooks', 'affiliates'] });
  });

  // Two PATCHes at once (two dashboard tabs), each naming one field: each keeps the other's change.
  describe.skipIf(h.kind !== 'postgres')('a change committed meanwhile', () => {
    const prefs = async (m: Member) => (await send(m, 'GET', '/merchant/me/email-notifications')).json().email_notifications;

    it('a PATCH of the categories keeps the payout mail turned off meanwhile (no row yet)', async () => {
      const a = await team();
      const res = await committedMeanwhile(h.db(), h.url()!,
        `insert into mail_preferences (user_id, referral_payout_requested, categories, updated_at) values ($1, false, '{}', now())`, [a.finance.userId],
        () => send(a.finance, 'PATCH', '/merchant/me/email-notifications', { categories: ['payments'] }));
      expect([res.statusCode, res.json()]).toEqual([200, { email_notifications: { referral_payout_requested: false, categories: ['payments'] } }]);
      expect(await prefs(a.finance)).toEqual({ referral_payout_requested: false, categories: ['payments'] });
    });

    it('a PATCH of the payout mail keeps the categories chosen meanwhile', async () => {
      const a = await team();
      expect((await send(a.owner, 'PATCH', '/merchant/me/email-notifications', { categories: ['team'] })).statusCode).toBe(200);
      const res = await committedMeanwhile(h.db(), h.url()!,
        `update mail_preferences set categories = '{payments,team}' where user_id = $1`, [a.owner.userId],
        () => send(a.owner, 'PATCH', '/merchant/me/email-notifications', { referral_payout_requested: false }));
      expect([res.statusCode, res.json()]).toEqual([200, { email_notifications: { referral_payout_requested: false, categories: ['payments', 'team'] } }]);
      expect(await prefs(a.owner)).toEqual({ referral_payout_requested: false, categories: ['payments', 'team'] });
    });
  });

  it('an SMTP server refusing (5xx) means a retry after the backoff, then the delivery', async () => {
    const a = await team();
    smtp.refuse = '554 5.7.1 not now';
    await requestPayout(a.finance);
    expect(await deliver()).toBe(3);
    expect(smtp.messages).toHaveLength(0);
    let rows = await rowsOf(a.acct.merchant.id);
    expect(rows.map((r) => [r.status, r.attempts, r.lastError])).toEqual(Array(3).fill(['pending', 1, '554 5.7.1 not now']));
    expect(rows[0].nextAttemptAt.getTime() - clock.now().getTime()).toBe(MAIL_RETRY_DELAYS_S[0] * 1000);
    smtp.refuse = null;
    // not before its time
    expect(await t.services.mail.worker!.runDue()).toBe(0);
    clock.advance(MAIL_RETRY_DELAYS_S[0] * 1000);
    expect(await t.services.mail.worker!.runDue()).toBe(3);
    expect(smtp.messages).toHaveLength(3);
    rows = await rowsOf(a.acct.merchant.id);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(Array(3).fill(['sent', 2]));
  });

  it('an SMTP server that is down means a retry, and the delivery once it is back', async () => {
    const a = await team();
    await smtp.close();
    try {
      await requestPayout(a.finance);
      await deliver();
      const rows = await rowsOf(a.acct.merchant.id);
      expect(rows.map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
      expect(rows[0].lastError).toContain('ECONNREFUSED');
      expect(rows[0].lastError).not.toContain(SMTP_PASSWORD);
    } finally {
      await smtp.listen();
    }
    clock.advance(MAIL_RETRY_DELAYS_S[0] * 1000);
    await t.services.mail.worker!.runDue();
    expect(smtp.messages).toHaveLength(3);
  });

  it(`gives up after ${MAIL_MAX_ATTEMPTS} attempts, keeping the last error; the password is never logged`, async () => {
    const a = await team();
    smtp.refuse = '550 5.1.1 no such user';
    await requestPayout(a.finance);
    await t.platform.outbox.drainNow();
    for (let i = 0; i < MAIL_MAX_ATTEMPTS; i++) {
      expect(await t.services.mail.worker!.runDue()).toBe(3);
      clock.advance(86_400_000);
    }
    expect(await t.services.mail.worker!.runDue()).toBe(0);
    const rows = await rowsOf(a.acct.merchant.id);
    expect(rows.map((r) => [r.status, r.attempts, r.lastError])).toEqual(Array(3).fill(['failed', MAIL_MAX_ATTEMPTS, '550 5.1.1 no such user']));
    expect(sink.lines()).toContain('e-mail given up after its last attempt');
    expect(sink.lines()).not.toContain(SMTP_PASSWORD);
  });

  it('a stopping worker ends with the batch in flight: the rest of a backlog is left pending, not sent during shutdown', async () => {
    const a = await team();
    await requestPayout(a.finance);
    await t.platform.outbox.drainNow();
    let began!: () => void;
    const first = new Promise<void>((r) => { began = r; });
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const sent: string[] = [];
    const worker = new MailWorker(h.db(), clock, sink.log, async (m) => { sent.push(m.to); began(); await gate; }, { messageIdHost: 'gw.test', batch: 1, pollMs: 60_000 });
    worker.start();
    await first;
    const stopped = worker.stop();
    release();
    await stopped;
    expect(sent).toHaveLength(1);
    const rows = await rowsOf(a.acct.merchant.id);
    expect(rows.map((r) => [r.status, r.attempts]).sort()).toEqual([['pending', 0], ['pending', 0], ['sent', 1]]);
  });

  it('a process that died after sending and before marking: sent again after the lease, with the same Message-ID (at least once)', async () => {
    const a = await team();
    await requestPayout(a.finance);
    await t.platform.outbox.drainNow();
    // a process claims the mails and dies without sending or marking them
    const claimed = await claimDueMail(h.db(), clock.now(), 1000, 10);
    expect(claimed).toHaveLength(3);
    expect(await t.services.mail.worker!.runDue()).toBe(0);
    clock.advance(1001);
    expect(await t.services.mail.worker!.runDue()).toBe(3);
    expect(smtp.messages).toHaveLength(3);
    const rows = await rowsOf(a.acct.merchant.id);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(Array(3).fill(['sent', 2]));
  });
});

describeEachDb('no SMTP_URL', (h) => {
  it('queues and sends nothing, breaks nothing, and says so once at start', async () => {
    const sink = logSink();
    const clock = new ManualClock(FRIDAY);
    const t = await startTestApp(h.db(), { clock, log: sink.log });
    try {
      expect(t.services.mail.worker).toBeNull();
      t.services.mail.start();
      expect(sink.lines().match(/SMTP_URL is not set: no e-mail is sent/g)).toHaveLength(1);
      expect(JSON.parse(sink.lines().split('\n').find((l) => l.includes('SMTP_URL is not set'))!).level).toBe(30);
      const acct = await signupAccount(t.app);
      const owner = await member(t, acct.merchant.id, 'owner');
      const auth = { authorization: `Bearer ${await owner.token()}`, 'content-type': 'application/json' };
      let res = await t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: auth, remoteAddress: randomIp(), payload: JSON.stringify({ token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password }) });
      expect(res.statusCode, res.body).toBe(201);
      await credit(t, acct.merchant.id, '1000');
      clock.advance(1000);
      res = await t.app.inject({ method: 'POST', url: '/merchant/affiliate/payouts', headers: auth, remoteAddress: randomIp(), payload: JSON.stringify({ amount: '100' }) });
      expect(res.statusCode, res.body).toBe(201);
      await t.platform.outbox.drainNow();
      expect(await h.db().orm.select().from(mailQueue)).toEqual([]);
      // the preference can still be set (it applies once e-mail is configured)
      res = await t.app.inject({ method: 'PATCH', url: '/merchant/me/email-notifications', headers: auth, remoteAddress: randomIp(), payload: JSON.stringify({ referral_payout_requested: false }) });
      expect(res.statusCode, res.body).toBe(200);
    } finally {
      await t.close();
    }
  });
});
