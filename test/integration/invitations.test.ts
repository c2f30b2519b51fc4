// Invitations to the team (CONTRACT.md "Invitations"): owners invite, list and revoke; the
// one-time token (hashed, shown once, 7 days) signs the new member in like a sign-in; team:update
// and the audit log follow every change.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { cookieOf, randomIp, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { member } from '../harness/affiliate.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { auditEntries, merchants, users } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { queryRows } from '../../src/platform/db/index.ts';
import { createInvitation } from '../../src/accounts/invitations.ts';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { untilLockWaiterOr } from '../harness/lock-waits.ts';

const DAY = 86_400_000;

describeEachDb('invitations', (h) => {
  let t: TestApp;
  let clock: ManualClock;
  let acct: Account;
  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await startTestApp(h.db(), { clock });
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });
  beforeEach(() => clock.advance(1000));

  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, payload?: unknown) => t.app.inject({
    method, url, remoteAddress: randomIp(), ...(token ? { headers: tokenHeader(token) } : {}), ...(payload === undefined ? {} : { payload: payload as object }),
  });
  const fresh = async (token = acct.accessToken) => (await inject('GET', '/merchant/me', token)).statusCode === 200 ? token
    : (await t.services.accounts.tokens.issue({ userId: acct.user.id, merchantId: acct.merchant.id, sessionId: sessionOf(token), role: 'owner' }, clock.now())).token;
  const sessionOf = (jwt: string): string => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).sid;
  const invite = async (body: Record<string, unknown>, token?: string) => inject('POST', '/merchant/invitations', token ?? await fresh(), body);
  const tokenOf = (acceptUrl: string): string => new URLSearchParams(new URL(acceptUrl).hash.slice(1)).get('token')!;
  const accept = (payload: unknown) => inject('POST', '/merchant/invitations/accept', undefined, payload);
  const teamEvents = async () => (await h.db().orm.select().from(events)
    .where(and(eq(events.merchantId, acct.merchant.id), eq(events.type, 'team:update'))).orderBy(events.seq)).map((e) => e.data as { action: string; user: unknown; invitation: { id: string } | null });

  it('invites (201 {invitation, accept_url}) with the token shown once and stored hashed, valid 7 days', async () => {
    const email = `New-${uid()}@Example.com`;
    const res = await invite({ email, role: 'developer' });
    expect(res.statusCode).toBe(201);
    const { invitation, accept_url } = res.json();
    expect(invitation).toEqual({
      id: expect.stringMatching(/^inv_/), merchant_id: acct.merchant.id, email: email.toLowerCase(), role: 'developer', status: 'pending',
      invited_by: acct.user.id, expires_at: new Date(clock.now().getTime() + 7 * DAY).toISOString(), created_at: clock.now().toISOString(),
    });
    expect(accept_url).toMatch(new RegExp(`^${t.config.publicUrl}/invitations/accept#token=[0-9a-f]{64}$`));
    const token = tokenOf(accept_url);
    const dump = JSON.stringify(await queryRows(h.db().orm, sql`select * from invitations`)) + JSON.stringify(await h.db().orm.select().from(auditEntries)) + JSON.stringify(await h.db().orm.select().from(events));
    expect(dump).not.toContain(token);
    const list = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations;
    expect(list.find((i: { id: string }) => i.id === invitation.id)).toEqual(invitation);
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, invitation.id), eq(auditEntries.action, 'invitation.created')));
    expect(audit.actor).toMatchObject({ kind: 'merchant', id: acct.user.id });
    expect((await teamEvents()).find((e) => e.invitation?.id === invitation.id)).toEqual({ action: 'invited', user: null, invitation });
  });

  it('signs the new member in on accept (201 like sign-in, refresh cookie); the token works once', async () => {
    const email = `joiner-${uid()}@example.com`;
    const { invitation, accept_url } = (await invite({ email, role: 'finance' })).json();
    const token = tokenOf(accept_url);
    for (const body of [{ token, password: 'short' }, { token }]) {
      const r = await accept(body);
      expect([r.statusCode, r.json()]).toEqual([400, { error: 'password must be at least 8 characters' }]);
    }
    const res = await accept({ token, password: 'a-long-password' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_at', 'role']);
    expect(body.role).toBe('finance');
    expect(cookieOf(res)).toMatch(/^refresh_token=/);
    const me = (await inject('GET', '/merchant/me', body.access_token)).json();
    expect(me.user).toMatchObject({ email, role: 'finance', merchant_id: acct.merchant.id });
    const signin = await t.app.inject({ method: 'POST', url: '/merchant/login', remoteAddress: randomIp(), payload: { email, password: 'a-long-password' } });
    expect(signin.statusCode).toBe(200);
    const again = await accept({ token, password: 'a-long-password' });
    expect([again.statusCode, again.json()]).toEqual([400, { error: 'invitation is no longer valid' }]);
    const listed = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations.find((i: { id: string }) => i.id === invitation.id);
    expect(listed).toMatchObject({ status: 'accepted', accepted_at: clock.now().toISOString() });
    const added = (await teamEvents()).find((e) => e.action === 'added' && e.invitation?.id === invitation.id);
    expect(added).toMatchObject({ user: { email, role: 'finance' }, invitation: { status: 'accepted' } });
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, acct.merchant.id), eq(auditEntries.action, 'user.added'), eq(auditEntries.subject, me.user.id)));
    expect(audit).toMatchObject({ note: `accepted invitation ${invitation.id}` });
    const notes = (await inject('GET', '/merchant/notifications?category=team', await fresh())).json().notifications;
    expect(notes[0]).toMatchObject({ title: 'Team member added', body: `${email} joined the team as finance.`, subject: me.user.id });
  });

  it('audits the member an accept adds with the request it came from (ip, user_agent, request_id), like every other actor', async () => {
    const email = `origin-${uid()}@example.com`;
    const { invitation, accept_url } = (await invite({ email, role: 'developer' })).json();
    const res = await t.app.inject({
      method: 'POST', url: '/merchant/invitations/accept', remoteAddress: '10.20.30.40',
      headers: { 'user-agent': 'joiner-browser/1.0', 'x-request-id': 'req-accept-origin-1' }, payload: { token: tokenOf(accept_url), password: 'a-long-password' },
    });
    expect(res.statusCode).toBe(201);
    const [audit] = await h.db().orm.select().from(auditEntries)
      .where(and(eq(auditEntries.merchantId, acct.merchant.id), eq(auditEntries.action, 'user.added'), eq(auditEntries.note, `accepted invitation ${invitation.id}`)));
    expect(audit.actor).toEqual({
      kind: 'merchant', id: expect.stringMatching(/^usr_/), merchant_id: acct.merchant.id, email, role: 'developer',
      ip: '10.20.30.40', user_agent: 'joiner-browser/1.0', request_id: 'req-accept-origin-1',
    });
  });

  it('answers 400 `invitation is no longer valid` to an unknown, revoked or expired token', async () => {
    const one = (await invite({ email: `r-${uid()}@example.com`, role: 'viewer' })).json();
    const del = await inject('DELETE', `/merchant/invitations/${one.invitation.id}`, await fresh());
    expect([del.statusCode, del.json()]).toEqual([200, { message: 'invitation revoked' }]);
    const two = (await invite({ email: `e-${uid()}@example.com`, role: 'viewer' })).json();
    clock.advance(7 * DAY);
    for (const token of [tokenOf(one.accept_url), tokenOf(two.accept_url), 'f'.repeat(64), '', 42, undefined]) {
      const res = await accept({ token, password: 'a-long-password' });
      expect([res.statusCode, res.json()], String(token)).toEqual([400, { error: 'invitation is no longer valid' }]);
    }
    const list = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations;
    expect(list.find((i: { id: string }) => i.id === one.invitation.id).status).toBe('revoked');
    expect(list.find((i: { id: string }) => i.id === two.invitation.id).status).toBe('expired');
  });

  it('answers 409 `email already registered` when inviting a member of any account, and at accept when the email was taken meanwhile', async () => {
    const other = await signupAccount(t.app);
    const res = await invite({ email: other.email.toUpperCase(), role: 'viewer' });
    expect([res.statusCode, res.json()]).toEqual([409, { error: 'email already registered' }]);
    const email = `race-${uid()}@example.com`;
    const { accept_url } = (await invite({ email, role: 'viewer' })).json();
    await signupAccount(t.app, { email });
    const late = await accept({ token: tokenOf(accept_url), password: 'a-long-password' });
    expect([late.statusCode, late.json()]).toEqual([409, { error: 'email already registered' }]);
  });

  it('refuses a bad email or role with the team\'s messages', async () => {
    for (const [body, error] of [
      [{ email: 'nope', role: 'viewer' }, 'invalid email address'],
      [{ role: 'viewer' }, 'invalid email address'],
      [{ email: `x-${uid()}@example.com`, role: 'admin' }, 'role must be one of owner, developer, finance, viewer'],
      [{ email: `x-${uid()}@example.com` }, 'role must be one of owner, developer, finance, viewer'],
      [{ email: 'a\u0000b@example.com', role: 'viewer' }, 'email must not contain NUL characters'],
    ] as const) {
      const res = await invite(body);
      expect([res.statusCode, res.json()], JSON.stringify(body)).toEqual([400, { error }]);
    }
  });

  it('replaces a pending invitation to the same email, revokes idempotently and refuses to revoke an accepted one', async () => {
    const email = `twice-${uid()}@example.com`;
    const first = (await invite({ email, role: 'viewer' })).json();
    const second = (await invite({ email, role: 'developer' })).json();
    const old = await accept({ token: tokenOf(first.accept_url), password: 'a-long-password' });
    expect(old.json()).toEqual({ error: 'invitation is no longer valid' });
    const owner = await fresh();
    expect((await inject('DELETE', `/merchant/invitations/${first.invitation.id}`, owner)).statusCode).toBe(200);
    expect((await accept({ token: tokenOf(second.accept_url), password: 'a-long-password' })).json().role).toBe('developer');
    const res = await inject('DELETE', `/merchant/invitations/${second.invitation.id}`, owner);
    expect([res.statusCode, res.json()]).toEqual([409, { error: 'only a pending invitation can be revoked: this one was accepted' }]);
    for (const id of ['inv_nope', 'inv%00x']) {
      const r = await inject('DELETE', `/merchant/invitations/${id}`, owner);
      expect(r.statusCode, id).toBeGreaterThanOrEqual(400);
      expect(r.statusCode, id).toBeLessThan(500);
    }
    expect((await inject('DELETE', '/merchant/invitations/inv_nope', owner)).json()).toEqual({ error: 'not found' });
    const other = await signupAccount(t.app);
    const theirs = await inject('DELETE', `/merchant/invitations/${second.invitation.id}`, other.accessToken);
    expect([theirs.statusCode, theirs.json()]).toEqual([404, { error: 'not found' }]);
    const actions = (await teamEvents()).filter((e) => e.invitation?.id === first.invitation.id).map((e) => e.action);
    expect(actions).toEqual(['invited', 'invitation_revoked']);
  });

  it('a pending invitation replaced by a new one to its email is written to the audit log as revoked; an expired one stays expired', async () => {
    const email = `replaced-${uid()}@example.com`;
    const first = (await invite({ email, role: 'viewer' })).json().invitation;
    clock.advance(1000);
    const second = (await invite({ email, role: 'finance' })).json().invitation;
    const revoked = { ...first, status: 'revoked' };
    const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, first.id), eq(auditEntries.action, 'invitation.revoked')));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      merchantId: acct.merchant.id, actor: { kind: 'merchant', id: acct.user.id }, before: first, after: revoked, note: `replaced by invitation ${second.id}`,
    });
    // past its 7 days it is expired, not pending: a new invitation leaves it as it is
    clock.advance(8 * DAY);
    const third = (await invite({ email, role: 'viewer' })).json().invitation;
    const list = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations as { id: string; status: string }[];
    expect(list.filter((i) => [first.id, second.id, third.id].includes(i.id)).map((i) => [i.id, i.status]))
      .toEqual([[third.id, 'pending'], [second.id, 'expired'], [first.id, 'revoked']]);
    expect(await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, second.id), eq(auditEntries.action, 'invitation.revoked')))).toEqual([]);
  });

  // Inviting an email again replaces its pending invitation (README): also when two owners (or two
  // tabs) invite it at the same moment, only one link may stay valid.
  it.skipIf(h.kind !== 'postgres')('leaves one pending invitation when the same email is invited several times at once', async () => {
    const owner = (await signupAccount(t.app)).accessToken;
    for (let round = 0; round < 3; round++) {
      const email = `race-${uid()}@example.com`;
      const answers = await Promise.all([0, 1, 2, 3].map(() => invite({ email, role: 'viewer' }, owner)));
      expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201, 201]);
      const pending = (await inject('GET', '/merchant/invitations', owner)).json().invitations
        .filter((i: { email: string; status: string }) => i.email === email && i.status === 'pending');
      expect(pending).toHaveLength(1);
      const valid = [];
      for (const r of answers) {
        const res = await accept({ token: tokenOf(r.json().accept_url), password: 'a-long-password' });
        if (res.statusCode === 201) valid.push(r.json().invitation.id);
      }
      expect(valid).toEqual([pending[0].id]);
    }
  });

  it('keeps each account\'s invitations its own: its list, and another account inviting the same email replaces nothing', async () => {
    const email = `shared-${uid()}@example.com`;
    const ours = (await invite({ email, role: 'developer' })).json();
    const other = await signupAccount(t.app);
    const theirs = (await invite({ email, role: 'viewer' }, other.accessToken)).json();
    expect(theirs.invitation.merchant_id).toBe(other.merchant.id);
    const ourList = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations as { id: string; merchant_id: string; status: string }[];
    expect(ourList.every((i) => i.merchant_id === acct.merchant.id)).toBe(true);
    expect(ourList.find((i) => i.id === ours.invitation.id)?.status).toBe('pending');
    expect(ourList.find((i) => i.id === theirs.invitation.id)).toBeUndefined();
    const theirList = (await inject('GET', '/merchant/invitations', other.accessToken)).json().invitations;
    expect(theirList.map((i: { id: string }) => i.id)).toEqual([theirs.invitation.id]);
    // Ours still works (theirs did not revoke it), and signs the member into our account with our role.
    const res = await accept({ token: tokenOf(ours.accept_url), password: 'a-long-password' });
    expect([res.statusCode, res.json().role]).toEqual([201, 'developer']);
    const me = (await inject('GET', '/merchant/me', res.json().access_token)).json();
    expect(me.user).toMatchObject({ email, merchant_id: acct.merchant.id, role: 'developer' });
  });

  it('revoking a pending invitation is told to the team and written to the audit log', async () => {
    const { invitation } = (await invite({ email: `rv-${uid()}@example.com`, role: 'finance' })).json();
    clock.advance(1000);
    const res = await inject('DELETE', `/merchant/invitations/${invitation.id}`, await fresh());
    expect([res.statusCode, res.json()]).toEqual([200, { message: 'invitation revoked' }]);
    const revoked = { ...invitation, status: 'revoked' };
    expect((await teamEvents()).filter((e) => e.invitation?.id === invitation.id)).toEqual([
      { action: 'invited', user: null, invitation },
      { action: 'invitation_revoked', user: null, invitation: revoked },
    ]);
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, invitation.id), eq(auditEntries.action, 'invitation.revoked')));
    expect(audit).toMatchObject({ merchantId: acct.merchant.id, actor: { kind: 'merchant', id: acct.user.id }, before: invitation, after: revoked });
  });

  // An invitation stands on its inviter's word as an owner: once they are removed or no longer an
  // owner, their pending invitations are revoked with the change (README "Invitations").
  it('revokes the pending invitations of an owner who is removed or no longer an owner', async () => {
    const owner = await fresh();
    for (const [how, change] of [
      ['removed', (id: string) => inject('DELETE', `/merchant/users/${id}`, owner)],
      ['demoted', (id: string) => t.app.inject({ method: 'PATCH', url: `/merchant/users/${id}`, headers: tokenHeader(owner), payload: { role: 'developer' } })],
    ] as const) {
      const inviter = await member(t, acct.merchant.id, 'owner');
      const theirs = (await invite({ email: `by-${how}-${uid()}@example.com`, role: 'owner' }, await inviter.token())).json();
      const ours = (await invite({ email: `ours-${how}-${uid()}@example.com`, role: 'viewer' })).json();
      expect(theirs.invitation.invited_by).toBe(inviter.userId);
      clock.advance(1000);
      expect((await change(inviter.userId)).statusCode, how).toBe(200);
      const late = await accept({ token: tokenOf(theirs.accept_url), password: 'a-long-password' });
      expect([late.statusCode, late.json()], how).toEqual([400, { error: 'invitation is no longer valid' }]);
      const list = (await inject('GET', '/merchant/invitations', owner)).json().invitations;
      const revoked = { ...theirs.invitation, status: 'revoked' };
      expect(list.find((i: { id: string }) => i.id === theirs.invitation.id), how).toEqual(revoked);
      expect((await teamEvents()).filter((e) => e.invitation?.id === theirs.invitation.id), how).toEqual([
        { action: 'invited', user: null, invitation: theirs.invitation },
        { action: 'invitation_revoked', user: null, invitation: revoked },
      ]);
      const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, theirs.invitation.id), eq(auditEntries.action, 'invitation.revoked')));
      expect(audit, how).toMatchObject({ actor: { kind: 'merchant', id: acct.user.id }, before: theirs.invitation, after: revoked, note: `its inviter ${inviter.userId} was ${how === 'removed' ? 'removed' : 'no longer an owner'}` });
      // Another owner's invitation is untouched.
      expect((await accept({ token: tokenOf(ours.accept_url), password: 'a-long-password' })).statusCode, how).toBe(201);
    }
  });

  // The route reads the inviter's token before the invitation's transaction: their removal or
  // demotion committed in between must not leave an invitation made on their word.
  it('refuses an invitation whose inviter was removed or demoted after the route let them in', async () => {
    const owner = await fresh();
    for (const how of ['removed', 'demoted'] as const) {
      const inviter = await member(t, acct.merchant.id, 'owner');
      const actor = { kind: 'merchant' as const, id: inviter.userId, merchant_id: acct.merchant.id, role: 'owner' };
      const res = how === 'removed' ? await inject('DELETE', `/merchant/users/${inviter.userId}`, owner)
        : await t.app.inject({ method: 'PATCH', url: `/merchant/users/${inviter.userId}`, headers: tokenHeader(owner), payload: { role: 'viewer' } });
      expect(res.statusCode, how).toBe(200);
      const email = `late-inviter-${uid()}@example.com`;
      await expect(createInvitation(h.db(), acct.merchant.id, { email, role: 'owner' }, actor, clock.now()), how).rejects.toMatchObject({ status: 403, message: 'insufficient permissions' });
      const list = (await inject('GET', '/merchant/invitations', owner)).json().invitations;
      expect(list.filter((i: { email: string }) => i.email === email), how).toEqual([]);
    }
  });

  // The inviter's removal or demotion takes the team lock, then revokes their pending invitations:
  // an accept arriving in between (it read the invitation still pending and made the member) let
  // the removed owner's word make a member. The accept waits for the team change and reads the
  // invitation again under the lock. The team change is written here as the service writes it.
  it.skipIf(h.kind !== 'postgres')('refuses an accept that arrives while its inviter is being removed or demoted', async () => {
    for (const [how, change] of [
      ['removed', 'delete from users where id = $1'],
      ['demoted', "update users set role = 'developer' where id = $1"],
    ] as const) {
      const inviter = await member(t, acct.merchant.id, 'owner');
      const email = `mid-${how}-${uid()}@example.com`;
      const { invitation, accept_url } = (await invite({ email, role: 'owner' }, await inviter.token())).json();
      const team = new pg.Client({ connectionString: h.url()! });
      await team.connect();
      let res;
      try {
        await team.query('begin');
        await team.query('select id from merchants where id = $1 for no key update', [acct.merchant.id]);
        await team.query(change, [inviter.userId]);
        let answered = false;
        const pending = accept({ token: tokenOf(accept_url), password: 'a-long-password' }).finally(() => { answered = true; });
        await untilLockWaiterOr(h.db(), () => answered);
        await team.query("update invitations set status = 'revoked', revoked_at = now() where invited_by = $1 and status = 'pending'", [inviter.userId]);
        await team.query('commit');
        res = await pending;
      } finally {
        await team.end();
      }
      expect([res.statusCode, res.json()], how).toEqual([400, { error: 'invitation is no longer valid' }]);
      expect(await h.db().orm.select().from(users).where(eq(users.email, email)), how).toEqual([]);
      const list = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations;
      expect(list.find((i: { id: string }) => i.id === invitation.id)?.status, how).toBe('revoked');
    }
  });

  // Adding a member directly (POST /merchant/users) with an invitation pending for that email left
  // the invitation pending, its accept then answering 409: it is revoked with the add.
  it('revokes a pending invitation to an email added directly to the team', async () => {
    const email = `direct-${uid()}@example.com`;
    const { invitation, accept_url } = (await invite({ email, role: 'viewer' })).json();
    clock.advance(1000);
    const added = await t.app.inject({ method: 'POST', url: '/merchant/users', remoteAddress: randomIp(), headers: tokenHeader(await fresh()), payload: { email, password: 'a-long-password', role: 'developer' } });
    expect(added.statusCode).toBe(201);
    const late = await accept({ token: tokenOf(accept_url), password: 'a-long-password' });
    expect([late.statusCode, late.json()]).toEqual([400, { error: 'invitation is no longer valid' }]);
    const revoked = { ...invitation, status: 'revoked' };
    const list = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations;
    expect(list.find((i: { id: string }) => i.id === invitation.id)).toEqual(revoked);
    expect((await teamEvents()).filter((e) => e.invitation?.id === invitation.id).map((e) => e.action)).toEqual(['invited', 'invitation_revoked']);
    const [audit] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, invitation.id), eq(auditEntries.action, 'invitation.revoked')));
    expect(audit).toMatchObject({ actor: { kind: 'merchant', id: acct.user.id }, after: revoked, note: `${email} was added to the team as ${added.json().user.id}` });
  });

  it('an invitation accepts until the last moment before expires_at, and lists as pending until then', async () => {
    const { invitation, accept_url } = (await invite({ email: `late-${uid()}@example.com`, role: 'viewer' })).json();
    clock.advance(7 * DAY - 1);
    const listed = (await inject('GET', '/merchant/invitations', await fresh())).json().invitations.find((i: { id: string }) => i.id === invitation.id);
    expect(listed.status).toBe('pending');
    const res = await accept({ token: tokenOf(accept_url), password: 'a-long-password' });
    expect([res.statusCode, res.json().role]).toEqual([201, 'viewer']);
  });

  it('limits accepting to 5 a second per client address, like sign-in', async () => {
    clock.advance(2000);
    const ip = randomIp();
    const from = (addr: string) => t.app.inject({ method: 'POST', url: '/merchant/invitations/accept', remoteAddress: addr, payload: { token: 'f'.repeat(64), password: 'a-long-password' } });
    for (let i = 0; i < 5; i++) expect((await from(ip)).statusCode).toBe(400);
    const sixth = await from(ip);
    expect([sixth.statusCode, sixth.json()]).toEqual([429, { error: 'rate limit exceeded' }]);
    expect((await from(randomIp())).statusCode).toBe(400);
    clock.advance(1001);
    expect((await from(ip)).statusCode).toBe(400);
    // A budget of its own: an address that used up its sign-ins may still accept.
    const other = randomIp();
    const login = () => t.app.inject({ method: 'POST', url: '/merchant/login', remoteAddress: other, payload: { email: `nobody-${uid()}@example.com`, password: 'wrong-password' } });
    for (let i = 0; i < 5; i++) expect((await login()).statusCode).toBe(401);
    expect((await login()).statusCode).toBe(429);
    expect((await from(other)).statusCode).toBe(400);
  });

  it('lets owners only manage invitations', async () => {
    for (const role of ['developer', 'finance', 'viewer'] as const) {
      const m = await member(t, acct.merchant.id, role);
      const token = await m.token();
      for (const [method, url] of [['POST', '/merchant/invitations'], ['GET', '/merchant/invitations'], ['DELETE', '/merchant/invitations/inv_x']] as const) {
        const res = await inject(method, url, token, method === 'POST' ? { email: `y-${uid()}@example.com`, role: 'viewer' } : undefined);
        expect([res.statusCode, res.json()], `${method} ${url} as ${role}`).toEqual([403, { error: 'insufficient permissions' }]);
      }
    }
  });

  it('refuses to sign a member of a suspended account in', async () => {
    const other = await signupAccount(t.app);
    const { accept_url } = (await invite({ email: `s-${uid()}@example.com`, role: 'viewer' }, other.accessToken)).json();
    await h.db().orm.update(merchants).set({ status: 'suspended' }).where(eq(merchants.id, other.merchant.id));
    const res = await accept({ token: tokenOf(accept_url), password: 'a-long-password' });
    expect([res.statusCode, res.json()]).toEqual([403, { error: 'merchant account is suspended' }]);
  });

  it('never answers 5xx to any JSON body on accept', async () => {
    await fc.assert(fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.constantFrom('token', 'password'), fc.jsonValue({ maxDepth: 2 }))), async (body) => {
      const res = await accept(body);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBeLessThan(500);
    }), { numRuns: 30 });
  });
});
