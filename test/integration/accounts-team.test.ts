// The team (spec 4.4 "Team", owner only), with the last-owner rule under concurrency.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, PASSWORD, randomIp, signIn, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { auditEntries, users } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';
import { addUser, changeRole, removeUser } from '../../src/accounts/team.ts';

describeEachDb('accounts team', (h) => {
  let t: TestApp;
  let acct: Account;
  beforeAll(async () => {
    t = await startTestApp(h.db());
    acct = await signupAccount(t.app);
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const as = (token: string) => ({
    list: () => inject({ method: 'GET', url: '/merchant/users', headers: tokenHeader(token) }),
    add: (payload: object) => inject({ method: 'POST', url: '/merchant/users', headers: tokenHeader(token), payload }),
    patch: (id: string, payload: object) => inject({ method: 'PATCH', url: `/merchant/users/${id}`, headers: tokenHeader(token), payload }),
    remove: (id: string) => inject({ method: 'DELETE', url: `/merchant/users/${id}`, headers: tokenHeader(token) }),
  });
  const me = (token: string) => inject({ method: 'GET', url: '/merchant/me', headers: tokenHeader(token) });

  it('adds a member (201 {user}), lists the team, records user.added and team:update', async () => {
    const owner = as(acct.accessToken);
    const email = `Dev-${uid()}@Example.com`;
    const res = await owner.add({ email, password: PASSWORD, role: 'developer' });
    expect(res.statusCode).toBe(201);
    const user = res.json().user;
    expect(user).toMatchObject({ email: email.toLowerCase(), role: 'developer', merchant_id: acct.merchant.id });
    expect(user.last_login_at).toBeUndefined();
    const list = (await owner.list()).json().users;
    expect(list.map((u: { id: string }) => u.id)).toEqual([acct.user.id, user.id]);
    const [entry] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, user.id), eq(auditEntries.action, 'user.added')));
    expect(entry.actor).toMatchObject({ kind: 'merchant', id: acct.user.id, email: acct.email, role: 'owner' });
    expect(JSON.stringify(entry)).not.toMatch(/password/);
    const ev = await h.db().orm.select().from(events).where(and(eq(events.type, 'team:update'), eq(events.merchantId, acct.merchant.id)));
    expect(ev.map((e) => (e.data as { action: string }).action)).toContain('added');
    expect((await signIn(t.app, email, PASSWORD)).role).toBe('developer');
  });

  it.each([
    [{ email: 'nope', password: PASSWORD, role: 'viewer' }, 400, 'invalid email address'],
    [{ email: 'x@example.com', password: 'short', role: 'viewer' }, 400, 'password must be at least 8 characters'],
    [{ email: 'x@example.com', password: PASSWORD, role: 'admin' }, 400, 'role must be one of owner, developer, finance, viewer'],
    [{ email: 'x@example.com', password: PASSWORD }, 400, 'role must be one of owner, developer, finance, viewer'],
  ])('refuses adding %j with %i %s', async (payload, status, message) => {
    const res = await as(acct.accessToken).add(payload);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: message });
  });

  it('answers 409 `email already registered` for an email of any account', async () => {
    const other = await signupAccount(t.app);
    const res = await as(acct.accessToken).add({ email: other.email, password: PASSWORD, role: 'viewer' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'email already registered' });
  });

  it('answers 400 `role must be one of …` to a bad role change and 404 `not found` to an unknown or foreign member', async () => {
    const m = await addMember(t.app, acct.accessToken, 'viewer');
    const bad = await as(acct.accessToken).patch(m.id, { role: 'boss' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'role must be one of owner, developer, finance, viewer' });
    const other = await signupAccount(t.app);
    for (const res of [await as(acct.accessToken).patch('usr_nope', { role: 'viewer' }), await as(acct.accessToken).patch(other.user.id, { role: 'viewer' }), await as(acct.accessToken).remove(other.user.id)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not found' });
    }
  });

  it('changing a role ends the member\'s sessions and is audited with before/after', async () => {
    const m = await addMember(t.app, acct.accessToken, 'viewer');
    const res = await as(acct.accessToken).patch(m.id, { role: 'finance' });
    expect(res.statusCode).toBe(200);
    expect(res.json().user.role).toBe('finance');
    expect((await me(m.accessToken)).statusCode).toBe(401);
    const [entry] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, m.id), eq(auditEntries.action, 'user.role_changed')));
    expect(entry.before).toMatchObject({ role: 'viewer' });
    expect(entry.after).toMatchObject({ role: 'finance' });
    expect((await signIn(t.app, m.email)).role).toBe('finance');
  });

  it('removing a member: 200 {message: user removed}, their token stops and signing in gives 401 `invalid credentials`', async () => {
    const m = await addMember(t.app, acct.accessToken, 'developer');
    const res = await as(acct.accessToken).remove(m.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'user removed' });
    expect((await me(m.accessToken)).statusCode).toBe(401);
    const login = await inject({ method: 'POST', url: '/merchant/login', payload: { email: m.email, password: m.password } });
    expect(login.statusCode).toBe(401);
    expect(login.json()).toEqual({ error: 'invalid credentials' });
    const refresh = await inject({ method: 'POST', url: '/merchant/auth/refresh', headers: { cookie: m.refreshCookie } });
    expect(refresh.json()).toEqual({ error: 'invalid or expired token' });
    // CONTRACT.md "Access": the removal is audited as user.removed, by the acting owner, with the member as it was
    const [entry] = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.subject, m.id), eq(auditEntries.action, 'user.removed')));
    expect(entry.actor).toMatchObject({ kind: 'merchant', id: acct.user.id, email: acct.email, role: 'owner' });
    expect(entry.before).toMatchObject({ id: m.id, role: 'developer' });
    expect((await as(acct.accessToken).remove(m.id)).statusCode).toBe(404);
  });

  it('removing a member ends their sessions and tells their open dashboards at once (session:revoked, reason removed)', async () => {
    const m = await addMember(t.app, acct.accessToken, 'finance');
    const sid = JSON.parse(Buffer.from(m.accessToken.split('.')[1], 'base64url').toString()).sid as string;
    expect((await as(acct.accessToken).remove(m.id)).statusCode).toBe(200);
    const told = await h.db().orm.select().from(events).where(and(eq(events.type, 'session:revoked'), eq(events.merchantId, acct.merchant.id)));
    expect(told.map((e) => e.data)).toContainEqual({ user_id: m.id, session_ids: [sid], reason: 'removed' });
  });

  it('answers 409 `the account must keep at least one owner` to demoting or removing the last owner', async () => {
    const solo = await signupAccount(t.app);
    for (const res of [await as(solo.accessToken).patch(solo.user.id, { role: 'developer' }), await as(solo.accessToken).remove(solo.user.id)]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'the account must keep at least one owner' });
    }
    expect((await me(solo.accessToken)).statusCode).toBe(200);
  });

  it('lets exactly one of two concurrent demotions of the last two owners succeed', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await signupAccount(t.app);
      const b = await addMember(t.app, a.accessToken, 'owner');
      const [r1, r2] = await Promise.all([
        as(a.accessToken).patch(a.user.id, { role: 'viewer' }),
        as(b.accessToken).patch(b.id, { role: 'viewer' }),
      ]);
      expect([r1.statusCode, r2.statusCode].sort()).toEqual([200, 409]);
      const team = await as((await signIn(t.app, r1.statusCode === 200 ? b.email : a.email)).accessToken).list();
      expect(team.json().users.filter((u: { role: string }) => u.role === 'owner')).toHaveLength(1);
    }
  });

  it('lets exactly one of two concurrent removals of the last two owners succeed', async () => {
    const a = await signupAccount(t.app);
    const b = await addMember(t.app, a.accessToken, 'owner');
    const [r1, r2] = await Promise.all([as(a.accessToken).remove(b.id), as(b.accessToken).remove(a.user.id)]);
    // the loser, removed by the winner, is refused: by its ended session (401) when the winner committed
    // before its request was let in, else under the team lock as no longer an owner (403)
    const codes = [r1.statusCode, r2.statusCode].sort();
    expect(codes[0]).toBe(200);
    expect([401, 403]).toContain(codes[1]);
    const left = await h.db().orm.select().from(users).where(eq(users.merchantId, a.merchant.id));
    expect(left.map((u) => u.role)).toEqual(['owner']);
  });

  // The route reads the acting owner's token before the change's transaction: their removal or
  // demotion committed in between must not leave a change made on their word (a demoted owner
  // adding or promoting an owner would take the account back).
  it('refuses a team change by an owner removed or demoted after the route let them in (403, nothing changed)', async () => {
    const a = await signupAccount(t.app);
    for (const how of ['removed', 'demoted'] as const) {
      const acting = await addMember(t.app, a.accessToken, 'owner');
      const target = await addMember(t.app, a.accessToken, 'viewer');
      const actor = { kind: 'merchant' as const, id: acting.id, merchant_id: a.merchant.id, email: acting.email, role: 'owner' };
      const res = how === 'removed' ? await as(a.accessToken).remove(acting.id) : await as(a.accessToken).patch(acting.id, { role: 'viewer' });
      expect(res.statusCode, how).toBe(200);
      const denied = { status: 403, message: 'insufficient permissions' };
      const email = `late-owner-${uid()}@example.com`;
      await expect(addUser(h.db(), a.merchant.id, { email, password: PASSWORD, role: 'owner' }, actor, new Date()), how).rejects.toMatchObject(denied);
      await expect(changeRole(h.db(), a.merchant.id, target.id, { role: 'owner' }, actor, new Date()), how).rejects.toMatchObject(denied);
      await expect(removeUser(h.db(), a.merchant.id, a.user.id, actor, new Date()), how).rejects.toMatchObject(denied);
      const team = await h.db().orm.select().from(users).where(eq(users.merchantId, a.merchant.id));
      expect(team.some((u) => u.email === email), how).toBe(false);
      expect(team.find((u) => u.id === target.id)?.role, how).toBe('viewer');
      expect(team.find((u) => u.id === a.user.id)?.role, how).toBe('owner');
    }
  });

  it('keeps the team to owners: 403 `insufficient permissions` for the other roles', async () => {
    const dev = await addMember(t.app, acct.accessToken, 'developer');
    const res = await as(dev.accessToken).list();
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'insufficient permissions' });
  });
});
