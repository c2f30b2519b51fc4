// E-mail of invitations (README "E-mail", "Invitations"): with SMTP configured, POST
// /merchant/invitations (its answer unchanged) queues one mail to the invited address in the
// invitation's transaction; it reaches a real SMTP server (test/harness/smtp.ts) with a link that
// accepts the invitation. A revoked, accepted or expired invitation's mail is skipped at send time.
// The accept token is never in mail_queue in clear (sealed, then erased), nor in /admin/mail, nor
// in the logs; sent rows are pruned as other mail. Without SMTP_URL nothing is queued.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount, uid, type Account } from '../harness/accounts.ts';
import { admin, member } from '../harness/affiliate.ts';
import type { Member } from '../harness/settlement.ts';
import { SmtpTestServer, type ReceivedMail } from '../harness/smtp.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { MAIL_SENT_KEPT_DAYS, mailQueue } from '../../src/mail/index.ts';
import { invitations, users } from '../../src/accounts/index.ts';

const FRIDAY = '2026-03-06T15:30:00Z';
const DAY = 86_400_000;

function logSink(): { log: ReturnType<typeof createLogger>; lines: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } });
  return { log: createLogger('debug', stream), lines: () => chunks.join('') };
}

/** A message's text as written (quoted-printable soft breaks joined, escapes decoded). */
const textOf = (m: ReceivedMail): string =>
  m.data.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
const tokenOf = (acceptUrl: string): string => new URLSearchParams(new URL(acceptUrl).hash.slice(1)).get('token')!;

describeEachDb('e-mail of invitations', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  let smtp: SmtpTestServer;
  let sink: ReturnType<typeof logSink>;
  let acct: Account;
  let owner: Member;
  let ownerEmail: string;

  beforeAll(async () => {
    smtp = await new SmtpTestServer().listen();
    clock = new ManualClock(FRIDAY);
    sink = logSink();
    t = await startTestApp(h.db(), { clock, log: sink.log, env: { SMTP_URL: smtp.url(), MAIL_FROM: 'Gateway <gateway@example.test>' } });
    acct = await signupAccount(t.app, { merchant_name: 'Acme Invites' });
    owner = await member(t, acct.merchant.id, 'owner');
    ownerEmail = (await h.db().orm.select({ e: users.email }).from(users).where(eq(users.id, owner.userId)))[0].e;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.messages.length = 0;
    clock.advance(1000);
  });

  const as = async (method: 'POST' | 'DELETE', url: string, payload?: unknown) => t.app.inject({
    method, url, remoteAddress: randomIp(), headers: { authorization: `Bearer ${await owner.token()}` }, ...(payload === undefined ? {} : { payload: payload as object }),
  });
  async function invite(role = 'developer'): Promise<{ email: string; invitation: { id: string; expires_at: string }; acceptUrl: string; body: Record<string, unknown> }> {
    const email = `invitee-${uid()}@example.test`;
    const res = await as('POST', '/merchant/invitations', { email, role });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    return { email, invitation: body.invitation, acceptUrl: body.accept_url, body };
  }
  const rowOf = async (invitationId: string) => (await h.db().orm.select().from(mailQueue).where(eq(mailQueue.invitationId, invitationId)))[0];
  const worker = () => t.services.mail.worker!;
  const dump = async () => JSON.stringify(await queryRows(h.db().orm, sql`select * from mail_queue`));

  it('mails the invitee once, the answer unchanged; the link in it accepts the invitation', async () => {
    const { email, invitation, acceptUrl, body } = await invite('finance');
    // the answer of the POST is as it was: the invitation and the link, nothing more
    expect(Object.keys(body).sort()).toEqual(['accept_url', 'invitation']);
    // queued with the invitation (its transaction), before any outbox run
    const queued = await rowOf(invitation.id);
    expect(queued).toMatchObject({ kind: 'invitation', invitationId: invitation.id, notificationId: null, userId: null, merchantId: acct.merchant.id, toAddress: email, status: 'pending' });
    expect(await worker().runDue()).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    const [m] = smtp.messages;
    expect(m.to).toEqual([email]);
    expect(m.data).toMatch(new RegExp(`^Subject: ${ownerEmail.replace(/[.]/g, '\\.')} invited you to join Acme Invites$`, 'm'));
    const text = textOf(m);
    expect(text).toContain(`invited you to join the team of Acme Invites as finance.`);
    expect(text).toContain(acceptUrl);
    expect(text).toContain(`The link works once, until ${invitation.expires_at.slice(0, 16).replace('T', ' ')} UTC.`);
    // the link read from the mail accepts the invitation through the API
    const link = /https?:\/\/\S+\/invitations\/accept#token=[0-9a-f]{64}/.exec(text)![0];
    const accepted = await t.app.inject({ method: 'POST', url: '/merchant/invitations/accept', remoteAddress: randomIp(), payload: { token: tokenOf(link), password: 'invitee-password-1' } });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(accepted.json().role).toBe('finance');
    const sent = await rowOf(invitation.id);
    expect([sent.status, sent.attempts, sent.body]).toEqual(['sent', 1, '']);
    // nothing more to send
    expect(await worker().runDue()).toBe(0);
  });

  it('never keeps the token in clear: sealed while queued, erased once sent; never in /admin/mail nor in the logs', async () => {
    const { invitation, acceptUrl } = await invite();
    const token = tokenOf(acceptUrl);
    const queued = await rowOf(invitation.id);
    expect(queued.body).toMatch(/^m1:/);
    expect(await dump()).not.toContain(token);
    const listed = async () => JSON.stringify((await admin(t, 'GET', '/admin/mail?limit=200')).json());
    const pending = JSON.parse(await listed()).mail.find((x: { id: string }) => x.id === queued.id);
    expect(pending).toEqual({
      id: queued.id, kind: 'invitation', merchant_id: acct.merchant.id, user_id: null, notification_id: null, invitation_id: invitation.id,
      to_address: queued.toAddress, subject: `${ownerEmail} invited you to join Acme Invites`, status: 'pending', attempts: 0, last_error: null,
      created_at: queued.createdAt.toISOString(), next_attempt_at: queued.nextAttemptAt.toISOString(), sent_at: null,
    });
    expect(await listed()).not.toContain(token);
    await worker().runDue();
    expect(smtp.messages).toHaveLength(1);
    expect(textOf(smtp.messages[0])).toContain(token);
    expect(await dump()).not.toContain(token);
    expect(await listed()).not.toContain(token);
    expect(sink.lines()).not.toContain(token);
    // a sealed body copied onto another invitation's row does not open there: it is skipped, not sent
    const other = await invite();
    await h.db().orm.update(mailQueue).set({ body: queued.body }).where(eq(mailQueue.invitationId, other.invitation.id));
    smtp.messages.length = 0;
    await worker().runDue();
    expect(smtp.messages).toHaveLength(0);
    expect((await rowOf(other.invitation.id)).lastError).toBe('the mail cannot be opened: WEBHOOK_SECRET_KEY changed since it was queued');
  });

  it('an invitation revoked before its mail went: skipped, never received, its body erased', async () => {
    const { email, invitation } = await invite();
    const res = await as('DELETE', `/merchant/invitations/${invitation.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(await worker().runDue()).toBe(1);
    expect(smtp.messages.flatMap((m) => m.to)).not.toContain(email);
    const row = await rowOf(invitation.id);
    expect([row.status, row.lastError, row.body]).toEqual(['skipped', 'the invitation was revoked', '']);
  });

  it('an invitation replaced by a new one to the same address: only the new one\'s mail goes', async () => {
    const email = `invitee-${uid()}@example.test`;
    const first = (await as('POST', '/merchant/invitations', { email, role: 'viewer' })).json();
    const second = (await as('POST', '/merchant/invitations', { email, role: 'developer' })).json();
    expect(await worker().runDue()).toBe(2);
    expect(smtp.messages).toHaveLength(1);
    expect(textOf(smtp.messages[0])).toContain(second.accept_url);
    expect(textOf(smtp.messages[0])).not.toContain(first.accept_url);
    expect((await rowOf(first.invitation.id)).lastError).toBe('the invitation was revoked');
  });

  it('an invitation accepted or expired before its mail went: skipped with why', async () => {
    const a = await invite();
    const accepted = await t.app.inject({ method: 'POST', url: '/merchant/invitations/accept', remoteAddress: randomIp(), payload: { token: tokenOf(a.acceptUrl), password: 'invitee-password-1' } });
    expect(accepted.statusCode, accepted.body).toBe(201);
    const b = await invite();
    clock.advance(7 * DAY);
    expect(await worker().runDue()).toBe(2);
    expect(smtp.messages).toHaveLength(0);
    expect([(await rowOf(a.invitation.id)).lastError, (await rowOf(b.invitation.id)).lastError]).toEqual(['the invitation was accepted', 'the invitation has expired']);
  });

  it('an invitee who signed up on their own before the mail went: skipped (accepting would answer 409)', async () => {
    const { email, invitation } = await invite();
    const signup = await t.app.inject({ method: 'POST', url: '/merchant/signup', remoteAddress: randomIp(), payload: { merchant_name: 'Own shop', email, password: 'own-password-123' } });
    expect(signup.statusCode, signup.body).toBe(201);
    expect(await worker().runDue()).toBe(1);
    expect(smtp.messages.flatMap((m) => m.to)).not.toContain(email);
    const row = await rowOf(invitation.id);
    expect([row.status, row.lastError, row.body]).toEqual(['skipped', 'the invited address has an account by now', '']);
  });

  it('an invitation whose mail cannot be queued is not made: one transaction, nothing half-done', async () => {
    const email = `invitee-${uid()}@example.test`;
    await h.db().orm.execute(sql.raw(`create function refuse_mail() returns trigger language plpgsql as $$ begin raise exception 'mail queue refused'; end $$`));
    await h.db().orm.execute(sql.raw('create trigger refuse_mail before insert on mail_queue for each row execute function refuse_mail()'));
    try {
      const res = await as('POST', '/merchant/invitations', { email, role: 'viewer' });
      expect([res.statusCode, res.json()]).toEqual([500, { error: 'internal error' }]);
    } finally {
      await h.db().orm.execute(sql.raw('drop trigger refuse_mail on mail_queue'));
      await h.db().orm.execute(sql.raw('drop function refuse_mail()'));
    }
    expect(await h.db().orm.select().from(invitations).where(eq(invitations.email, email))).toEqual([]);
    // the same invitation goes through once the queue takes mail again
    expect((await as('POST', '/merchant/invitations', { email, role: 'viewer' })).statusCode).toBe(201);
  });

  it(`is pruned as other mail: a sent invitation mail ${MAIL_SENT_KEPT_DAYS} days after it was sent`, async () => {
    const { invitation } = await invite();
    await worker().runDue();
    expect((await rowOf(invitation.id)).status).toBe('sent');
    clock.advance(MAIL_SENT_KEPT_DAYS * DAY);
    await t.services.mail.prune();
    expect(await rowOf(invitation.id)).toBeDefined();
    clock.advance(1000);
    await t.services.mail.prune();
    expect(await rowOf(invitation.id)).toBeUndefined();
    // the invitation itself is kept
    const list = (await t.app.inject({ method: 'GET', url: '/merchant/invitations', remoteAddress: randomIp(), headers: { authorization: `Bearer ${await owner.token()}` } })).json();
    expect(list.invitations.map((i: { id: string }) => i.id)).toContain(invitation.id);
  });
});

describeEachDb('invitations without SMTP_URL', (h) => {
  it('queue no mail; the answer is the same', async () => {
    const t = await startTestApp(h.db(), { clock: new ManualClock(FRIDAY) });
    try {
      const acct = await signupAccount(t.app);
      const res = await t.app.inject({ method: 'POST', url: '/merchant/invitations', remoteAddress: randomIp(), headers: { authorization: `Bearer ${acct.accessToken}` }, payload: { email: `invitee-${uid()}@example.test`, role: 'viewer' } });
      expect(res.statusCode, res.body).toBe(201);
      expect(Object.keys(res.json()).sort()).toEqual(['accept_url', 'invitation']);
      await t.platform.outbox.drainNow();
      expect(await h.db().orm.select().from(mailQueue)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
