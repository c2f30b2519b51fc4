// The operator's view of e-mail (CONTRACT.md operator API, README "E-mail"): GET /admin/mail lists
// every merchant's queued mails by status, newest first, paged like the other operator lists, and
// POST /admin/mail/{id}/retry sends a given-up mail again through the worker and a real SMTP server
// (test/harness/smtp.ts), checking its recipient again at send time; audited with actor kind admin.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, type Account } from '../harness/accounts.ts';
import { ADDR, type Member } from '../harness/settlement.ts';
import { admin, credit, member } from '../harness/affiliate.ts';
import { SmtpTestServer } from '../harness/smtp.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { MAIL_MAX_ATTEMPTS, MAIL_STATUSES, mailQueue } from '../../src/mail/index.ts';
import { claimDueMail } from '../../src/mail/queue.ts';
import { auditEntries, users } from '../../src/accounts/index.ts';

const SMTP_PASSWORD = 'smtp-secret-Adm7';
const DAY = 86_400_000;

interface Team { acct: Account; owner: Member; finance: Member; open: string | null }
interface MailJson { id: string; merchant_id: string; user_id: string; to_address: string; status: string; attempts: number; last_error: string | null; next_attempt_at: string; sent_at: string | null }

describeEachDb('the operator\'s view of e-mail', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  let smtp: SmtpTestServer;

  beforeAll(async () => {
    smtp = await new SmtpTestServer().listen();
    clock = new ManualClock('2026-03-06T15:30:00Z');
    t = await startTestApp(h.db(), { clock, env: { SMTP_URL: smtp.url('gw', SMTP_PASSWORD), MAIL_FROM: 'gateway@example.test' } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.refuse = null;
    smtp.messages.length = 0;
  });

  const as = async (m: Member, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url, remoteAddress: randomIp(), headers: { authorization: `Bearer ${await m.token()}` }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

  async function team(): Promise<Team> {
    const acct = await signupAccount(t.app, { merchant_name: 'Acme Ops' });
    const [owner, finance] = await Promise.all((['owner', 'finance'] as const).map((r) => member(t, acct.merchant.id, r)));
    const res = await as(owner, 'POST', '/merchant/payout-addresses', { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password });
    expect(res.statusCode, res.body).toBe(201);
    await credit(t, acct.merchant.id, '1000');
    return { acct, owner, finance, open: null };
  }
  /**
   * A referral payout requested: "Payout requested" queued for the account's owner, the owner and
   * finance. The one before is canceled first (one may be open at a time; canceling mails nothing).
   */
  async function queue(a: Team): Promise<void> {
    if (a.open) expect((await as(a.owner, 'POST', `/merchant/affiliate/payouts/${a.open}/cancel`)).statusCode).toBe(200);
    clock.advance(1000);
    const res = await as(a.owner, 'POST', '/merchant/affiliate/payouts', { amount: '100' });
    expect(res.statusCode, res.body).toBe(201);
    a.open = res.json().payout.id;
    await t.platform.outbox.drainNow();
  }
  const worker = () => t.services.mail.worker!;
  /** What is queued now is refused by the server until it is given up. */
  async function giveUp(): Promise<void> {
    smtp.refuse = '550 5.1.1 no such user';
    for (let i = 0; i < MAIL_MAX_ATTEMPTS; i++) {
      await worker().runDue();
      clock.advance(DAY);
    }
    smtp.refuse = null;
  }
  const emailOf = async (userId: string) => (await h.db().orm.select({ e: users.email }).from(users).where(eq(users.id, userId)))[0].e;
  const list = async (query: string) => {
    const res = await admin(t, 'GET', `/admin/mail?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { mail: MailJson[]; total: number; limit: number; offset: number };
  };
  const mine = (a: Team, rows: MailJson[]) => rows.filter((m) => m.merchant_id === a.acct.merchant.id);
  const failedMailTo = async (a: Team, userId: string) => (await list('status=failed&limit=200')).mail.find((m) => m.merchant_id === a.acct.merchant.id && m.user_id === userId)!;
  const retried = (a: Team) => h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, a.acct.merchant.id), eq(auditEntries.action, 'mail.retried')));

  it('lists the mails of every status across merchants, newest first, filtered by status, paged; never the body nor the SMTP password', async () => {
    const a = await team();
    await queue(a);
    await giveUp(); // 3 failed
    await queue(a);
    const removed = await as(a.owner, 'DELETE', `/merchant/users/${a.finance.userId}`);
    expect(removed.statusCode, removed.body).toBe(200);
    await worker().runDue(); // 2 sent, finance's skipped
    await queue(a); // 2 pending: one claimed by a process that holds it (sending)
    expect(await claimDueMail(h.db(), clock.now(), 365 * DAY, 1)).toHaveLength(1);

    const counts: Record<string, number> = {};
    for (const status of MAIL_STATUSES) {
      const page = await list(`status=${status}&limit=200`);
      expect(page.mail.every((m) => m.status === status), status).toBe(true);
      counts[status] = mine(a, page.mail).length;
    }
    expect(counts).toEqual({ pending: 1, sending: 1, sent: 2, skipped: 1, failed: 3 });

    const all = await list('limit=200');
    const rows = mine(a, all.mail);
    expect(rows).toHaveLength(8);
    // newest first: the last payout's mails, then the second's, then the given-up ones
    expect(rows.map((m) => m.status).slice(2, 5).sort()).toEqual(['sent', 'sent', 'skipped']);
    expect(rows.slice(5).map((m) => m.status)).toEqual(['failed', 'failed', 'failed']);
    const stored = await h.db().orm.select().from(mailQueue).where(eq(mailQueue.merchantId, a.acct.merchant.id));
    const byId = (id: string) => stored.find((s) => s.id === id)!;
    const order = [...stored].sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : -1)).map((s) => s.id);
    expect(rows.map((m) => m.id)).toEqual(order);

    const failed = rows[7];
    const s = byId(failed.id);
    expect(failed).toEqual({
      id: s.id, kind: 'notification', merchant_id: a.acct.merchant.id, user_id: s.userId, notification_id: s.notificationId, invitation_id: null, to_address: s.toAddress,
      subject: 'Payout requested (Acme Ops)', status: 'failed', attempts: MAIL_MAX_ATTEMPTS, last_error: '550 5.1.1 no such user',
      created_at: s.createdAt.toISOString(), next_attempt_at: s.nextAttemptAt.toISOString(), sent_at: null,
    });
    const sent = rows.find((m) => m.status === 'sent')!;
    expect(sent.sent_at).toBe(byId(sent.id).sentAt!.toISOString());
    expect(rows.find((m) => m.status === 'skipped')!.last_error).toBe('the member is no longer on the team');
    const text = JSON.stringify(all);
    expect(text).not.toContain(SMTP_PASSWORD);
    expect(text).not.toContain('To stop it, change your e-mail notifications');
    expect(text).not.toContain('"body"');

    // the list rule of the other operator lists: limit and offset, with the total
    const second = await list('limit=1&offset=1');
    expect([second.mail.map((m) => m.id), second.limit, second.offset, second.total]).toEqual([[all.mail[1].id], 1, 1, all.total]);
    const dflt = await list('limit=0&offset=-3');
    expect([dflt.limit, dflt.offset]).toEqual([50, 0]);
    expect((await list('status=')).total).toBe(all.total);
    expect((await list('status=failed')).total).toBe((await list('status=failed&limit=200')).mail.length);
  });

  it('refuses an unknown status with the operator lists\' message', async () => {
    for (const q of ['status=lost', 'status=FAILED', 'status=failed&status=sent']) {
      const res = await admin(t, 'GET', `/admin/mail?${q}`);
      expect([res.statusCode, res.json()], q).toEqual([400, { error: 'status must be one of pending, sending, sent, skipped, failed' }]);
    }
  });

  it('retries a failed mail: back to pending, attempts from none, due now; the worker sends it; audited as the operator', async () => {
    const a = await team();
    await queue(a);
    await giveUp();
    const before = await failedMailTo(a, a.owner.userId);
    const res = await admin(t, 'POST', `/admin/mail/${before.id}/retry`);
    expect(res.statusCode, res.body).toBe(200);
    const now = clock.now().toISOString();
    expect(res.json().mail).toEqual({ ...before, status: 'pending', attempts: 0, last_error: null, next_attempt_at: now });

    expect(await worker().runDue()).toBe(1);
    expect(smtp.messages.map((m) => m.to)).toEqual([[await emailOf(a.owner.userId)]]);
    const [row] = await h.db().orm.select().from(mailQueue).where(eq(mailQueue.id, before.id));
    expect([row.status, row.attempts, row.lastError, row.sentAt?.toISOString()]).toEqual(['sent', 1, null, now]);
    // the other two stay given up
    expect(mine(a, (await list('status=failed&limit=200')).mail)).toHaveLength(2);

    const [entry] = await retried(a);
    expect(entry).toMatchObject({ subject: before.id, actor: { kind: 'admin', id: 'admin' }, before: { status: 'failed', attempts: MAIL_MAX_ATTEMPTS }, after: { status: 'pending', attempts: 0 } });
    // the owner reads it in the merchant's audit log
    const log = await as(a.owner, 'GET', '/merchant/audit?action=mail.retried');
    expect(log.json().entries.map((e: { subject: string; actor: { kind: string } }) => [e.subject, e.actor.kind])).toEqual([[before.id, 'admin']]);
  });

  it('a retried mail refused again starts the retry schedule over', async () => {
    const a = await team();
    await queue(a);
    await giveUp();
    const m = await failedMailTo(a, a.owner.userId);
    expect((await admin(t, 'POST', `/admin/mail/${m.id}/retry`)).statusCode).toBe(200);
    smtp.refuse = '451 4.3.0 try later';
    expect(await worker().runDue()).toBe(1);
    const [row] = await h.db().orm.select().from(mailQueue).where(eq(mailQueue.id, m.id));
    expect([row.status, row.attempts, row.lastError]).toEqual(['pending', 1, '451 4.3.0 try later']);
  });

  it('a retried mail to a member removed since is not sent: skipped, with why', async () => {
    const a = await team();
    await queue(a);
    await giveUp();
    const m = await failedMailTo(a, a.finance.userId);
    const removed = await as(a.owner, 'DELETE', `/merchant/users/${a.finance.userId}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await admin(t, 'POST', `/admin/mail/${m.id}/retry`)).statusCode).toBe(200);
    expect(await worker().runDue()).toBe(1);
    expect(smtp.messages).toHaveLength(0);
    const [row] = await h.db().orm.select().from(mailQueue).where(eq(mailQueue.id, m.id));
    expect([row.status, row.lastError]).toEqual(['skipped', 'the member is no longer on the team']);
  });

  it('refuses to retry a mail that is not failed (409) or unknown (404), changing nothing', async () => {
    const a = await team();
    await queue(a);
    await worker().runDue();
    const sent = mine(a, (await list('status=sent&limit=200')).mail)[0];
    await queue(a);
    const pending = mine(a, (await list('status=pending&limit=200')).mail)[0];
    for (const m of [sent, pending]) {
      const res = await admin(t, 'POST', `/admin/mail/${m.id}/retry`);
      expect([res.statusCode, res.json()]).toEqual([409, { error: 'only a failed mail can be retried' }]);
      const [row] = await h.db().orm.select().from(mailQueue).where(eq(mailQueue.id, m.id));
      expect([row.status, row.attempts]).toEqual([m.status, m.attempts]);
    }
    const unknown = await admin(t, 'POST', '/admin/mail/mail_nope/retry');
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: 'mail not found' }]);
    expect(await retried(a)).toEqual([]);
    await worker().runDue();
  });

  it('answers 401 invalid admin token without the right token, and 404 when ADMIN_TOKEN is unset', async () => {
    for (const [method, url] of [['GET', '/admin/mail'], ['POST', '/admin/mail/mail_x/retry']] as const) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
        const res = await t.app.inject({ method, url, headers, remoteAddress: randomIp() });
        expect([res.statusCode, res.json()], `${method} ${url}`).toEqual([401, { error: 'invalid admin token' }]);
      }
    }
    const off = await startTestApp(h.db(), { env: { ADMIN_TOKEN: '' } });
    try {
      for (const [method, url] of [['GET', '/admin/mail'], ['POST', '/admin/mail/mail_x/retry']] as const) {
        const res = await off.app.inject({ method, url, headers: { authorization: 'Bearer test-admin-token' }, remoteAddress: randomIp() });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
    } finally {
      await off.close();
    }
  });
});
