// Support chat (CONTRACT.md "Support chat" and the /admin/support rows): the merchant's routes with
// their author and owner rules, read marks per side, the operator's routes, audit and outbox events.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { and, asc, eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { addMember, randomIp, signupAccount, tokenHeader, type Account, type Member } from '../harness/accounts.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { ANY_ROLE, DASHBOARD_ROUTES } from '../../src/accounts/index.ts';
import { auditEntries } from '../../src/accounts/schema.ts';
import { events } from '../../src/events/index.ts';

const BODY_INVALID = 'body is required (up to 4000 characters)';
const ADMIN = { authorization: 'Bearer test-admin-token' };

describeEachDb('support chat', (h) => {
  let t: TestApp;
  let owner: Account;
  let dev: Member;
  let viewer: Member;
  const clock = new ManualClock('2026-02-02T10:00:00Z');
  beforeAll(async () => {
    t = await startTestApp(h.db(), { clock });
    owner = await signupAccount(t.app);
    dev = await addMember(t.app, owner.accessToken, 'developer');
    viewer = await addMember(t.app, owner.accessToken, 'viewer');
  });
  afterAll(async () => { await t.close(); });

  const inject = (opts: InjectOptions) => t.app.inject({ remoteAddress: randomIp(), ...opts });
  const tick = () => clock.advance(1000);
  const post = async (token: string, body: unknown) => { tick(); return inject({ method: 'POST', url: '/merchant/support/messages', headers: tokenHeader(token), payload: { body } as object }); };
  const list = (token: string, qs = '') => inject({ method: 'GET', url: `/merchant/support/messages${qs}`, headers: tokenHeader(token) });
  const patch = (token: string, id: string, body: unknown) => inject({ method: 'PATCH', url: `/merchant/support/messages/${id}`, headers: tokenHeader(token), payload: { body } as object });
  const del = (token: string, id: string) => inject({ method: 'DELETE', url: `/merchant/support/messages/${id}`, headers: tokenHeader(token) });
  const read = (token: string) => { tick(); return inject({ method: 'POST', url: '/merchant/support/read', headers: tokenHeader(token) }); };
  const reply = async (merchantId: string, payload: object) => { tick(); return inject({ method: 'POST', url: `/admin/support/${merchantId}/messages`, headers: ADMIN, payload }); };
  const eventsOf = (merchantId: string, type: string) =>
    h.db().orm.select().from(events).where(and(eq(events.merchantId, merchantId), eq(events.type, type))).orderBy(asc(events.seq));

  it('opens every merchant route of the chat to every role', () => {
    for (const r of ['GET /merchant/support/messages', 'POST /merchant/support/messages', 'PATCH /merchant/support/messages/:id',
      'DELETE /merchant/support/messages/:id', 'POST /merchant/support/read']) {
      expect(DASHBOARD_ROUTES.get(r)?.roles, r).toEqual(ANY_ROLE);
    }
  });

  it('lets any role write: 201 {message} signed with the member, and raises support:message', async () => {
    const res = await post(viewer.accessToken, '  Where is my payout?  ');
    expect(res.statusCode).toBe(201);
    const m = res.json().message;
    expect(m).toEqual({
      id: expect.stringMatching(/^msg_/), merchant_id: owner.merchant.id, side: 'merchant',
      author: { id: viewer.id, email: viewer.email, role: 'viewer' }, body: 'Where is my payout?', created_at: clock.now().toISOString(),
    });
    const ev = await eventsOf(owner.merchant.id, 'support:message');
    expect(ev.at(-1)?.data).toEqual(m);
  });

  it.each([
    ['missing', undefined], ['empty', ''], ['blank', '   '], ['a number', 42], ['an object', { a: 1 }], ['4001 characters', 'x'.repeat(4001)],
    // the limit is on the body as sent (the document's maxLength), not on what is left once trimmed
    ['4001 characters with a trailing space', `${'x'.repeat(4000)} `], ['4001 characters with a leading newline', `\n${'x'.repeat(4000)}`],
  ])('refuses a body that is %s: 400 `body is required (up to 4000 characters)`', async (_what, body) => {
    const res = await post(dev.accessToken, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: BODY_INVALID });
  });

  it('takes exactly 4000 characters (counted as characters, not bytes)', async () => {
    expect((await post(dev.accessToken, 'é'.repeat(4000))).statusCode).toBe(201);
    // 4000 as sent, white space at either end included; stored trimmed
    const padded = await post(dev.accessToken, ` ${'é'.repeat(3998)} `);
    expect(padded.statusCode).toBe(201);
    expect(padded.json().message.body).toBe('é'.repeat(3998));
  });

  it('refuses NUL characters, a body that is not JSON, and a request without a token', async () => {
    const nul = await post(dev.accessToken, 'a\u0000b');
    expect(nul.statusCode).toBe(400);
    expect(nul.json()).toEqual({ error: 'body must not contain NUL characters' });
    const notJson = await inject({ method: 'POST', url: '/merchant/support/messages', headers: { ...tokenHeader(dev.accessToken), 'content-type': 'application/json' }, payload: '{body' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toEqual({ error: 'invalid request body' });
    const anon = await inject({ method: 'POST', url: '/merchant/support/messages', payload: { body: 'hi' } });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toEqual({ error: 'missing token' });
  });

  it('lists oldest first with the merchant\'s unread count, pages backwards with `before`, and applies the list limits', async () => {
    const acct = await signupAccount(t.app);
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await post(acct.accessToken, `m${i}`)).json().message.id);
    const all = (await list(acct.accessToken)).json();
    expect(all.messages.map((m: { body: string }) => m.body)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(all).toMatchObject({ unread: 0, limit: 50 });
    const page = (await list(acct.accessToken, '?limit=2')).json();
    expect(page.messages.map((m: { body: string }) => m.body)).toEqual(['m4', 'm5']);
    const older = (await list(acct.accessToken, `?limit=2&before=${ids[3]}`)).json();
    expect(older.messages.map((m: { body: string }) => m.body)).toEqual(['m2', 'm3']);
    for (const limit of ['0', '201', '-1', 'abc']) expect((await list(acct.accessToken, `?limit=${limit}`)).json().limit).toBe(50);
    expect((await list(acct.accessToken, '?limit=200')).json().limit).toBe(200);
  });

  it('answers 400 for a `before` that is not a message of this conversation', async () => {
    const other = await signupAccount(t.app);
    const foreign = (await post(other.accessToken, 'theirs')).json().message.id;
    for (const before of [foreign, 'msg_unknown', 'bad id!', '%00']) {
      const res = await list(owner.accessToken, `?before=${encodeURIComponent(before)}`);
      expect(res.statusCode, before).toBe(400);
      expect(res.json()).toEqual({ error: 'before must be the id of a message of this conversation' });
    }
  });

  it('lets only the author edit: 200 with edited_at and support:message:update; 403 to anyone else', async () => {
    const id = (await post(dev.accessToken, 'first draft')).json().message.id;
    tick();
    const res = await patch(dev.accessToken, id, 'second draft');
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toMatchObject({ id, body: 'second draft', edited_at: clock.now().toISOString() });
    expect((await eventsOf(owner.merchant.id, 'support:message:update')).at(-1)?.data).toEqual(res.json().message);
    for (const other of [owner.accessToken, viewer.accessToken]) {
      const denied = await patch(other, id, 'not mine');
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual({ error: 'insufficient permissions' });
    }
    // the same text again is no edit: edited_at stays, nothing is raised
    const updates = (await eventsOf(owner.merchant.id, 'support:message:update')).length;
    tick();
    const same = await patch(dev.accessToken, id, 'second draft');
    expect(same.json().message).toEqual(res.json().message);
    expect(await eventsOf(owner.merchant.id, 'support:message:update')).toHaveLength(updates);
    for (const body of ['', `${'x'.repeat(4000)}  `]) {
      const bad = await patch(dev.accessToken, id, body);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error: BODY_INVALID });
    }
  });

  it('answers 404 `not found` to an unknown message, another merchant\'s, or a malformed id', async () => {
    const other = await signupAccount(t.app);
    const foreign = (await post(other.accessToken, 'theirs')).json().message.id;
    for (const id of ['msg_nope', foreign, 'a%20b']) {
      for (const res of [await patch(owner.accessToken, id, 'x'), await del(owner.accessToken, id)]) {
        expect(res.statusCode, id).toBe(404);
        expect(res.json()).toEqual({ error: 'not found' });
      }
    }
  });

  it('lets the author or an owner delete: the message keeps its place with an empty body', async () => {
    const mine = (await post(viewer.accessToken, 'delete me')).json().message.id;
    const theirs = (await post(dev.accessToken, 'the owner deletes this')).json().message.id;
    const denied = await del(viewer.accessToken, theirs);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'insufficient permissions' });
    tick();
    const own = await del(viewer.accessToken, mine);
    expect(own.statusCode).toBe(200);
    expect(own.json().message).toMatchObject({ id: mine, body: '', deleted_at: clock.now().toISOString() });
    const byOwner = await del(owner.accessToken, theirs);
    expect(byOwner.statusCode).toBe(200);
    expect(byOwner.json().message.body).toBe('');
    tick();
    const again = await del(viewer.accessToken, mine);
    expect(again.json().message).toEqual(own.json().message);
    const listed = (await list(owner.accessToken, '?limit=200')).json().messages;
    expect(listed.find((m: { id: string }) => m.id === mine)).toMatchObject({ body: '', deleted_at: own.json().message.deleted_at });
    const edit = await patch(viewer.accessToken, mine, 'back');
    expect(edit.statusCode).toBe(409);
    expect(edit.json()).toEqual({ error: 'this message was deleted: it cannot be edited' });
  });

  it('lets no member edit or delete a message from support', async () => {
    const m = (await reply(owner.merchant.id, { body: 'We are on it.' })).json().message;
    for (const res of [await patch(owner.accessToken, m.id, 'x'), await del(owner.accessToken, m.id)]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'insufficient permissions' });
    }
  });

  it('keeps read marks per side: support\'s replies are unread for the merchant until it reads', async () => {
    const acct = await signupAccount(t.app);
    await post(acct.accessToken, 'hello');
    await reply(acct.merchant.id, { body: 'hi there' });
    await reply(acct.merchant.id, { body: 'how can we help?' });
    expect((await list(acct.accessToken)).json().unread).toBe(2);
    const res = await read(acct.accessToken);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ side: 'merchant', read_at: clock.now().toISOString(), unread: 0 });
    expect((await eventsOf(acct.merchant.id, 'support:read')).at(-1)?.data).toEqual(res.json());
    expect((await list(acct.accessToken)).json().unread).toBe(0);
    await reply(acct.merchant.id, { body: 'one more' });
    expect((await list(acct.accessToken)).json().unread).toBe(1);
    // The operator's side has its own mark: the merchant's message is still unread there.
    const ops = (await inject({ method: 'GET', url: `/admin/support/${acct.merchant.id}/messages`, headers: ADMIN })).json();
    expect(ops.unread).toBe(1);
    expect(ops.messages.map((m: { side: string; body: string }) => `${m.side}:${m.body}`))
      .toEqual(['merchant:hello', 'support:hi there', 'support:how can we help?', 'support:one more']);
  });

  it('a message written at the very instant of a read counts as read on both sides; one a millisecond later does not', async () => {
    const acct = await signupAccount(t.app);
    const readNow = (url: string, headers: Record<string, string>) => inject({ method: 'POST', url, headers });
    const opsUnread = async () => ({
      messages: (await inject({ method: 'GET', url: `/admin/support/${acct.merchant.id}/messages`, headers: ADMIN })).json().unread,
      conversations: (await inject({ method: 'GET', url: '/admin/support?limit=200', headers: ADMIN })).json()
        .conversations.find((c: { merchant_id: string }) => c.merchant_id === acct.merchant.id).unread,
    });
    // support's reply and the merchant's read in the same millisecond
    await reply(acct.merchant.id, { body: 'same instant' });
    expect((await readNow('/merchant/support/read', tokenHeader(acct.accessToken))).json().read_at).toBe(clock.now().toISOString());
    expect((await list(acct.accessToken)).json().unread).toBe(0);
    clock.advance(1);
    await inject({ method: 'POST', url: `/admin/support/${acct.merchant.id}/messages`, headers: ADMIN, payload: { body: 'a moment later' } });
    expect((await list(acct.accessToken)).json().unread).toBe(1);
    // the merchant's message and support's read in the same millisecond
    await post(acct.accessToken, 'hello');
    expect((await readNow(`/admin/support/${acct.merchant.id}/read`, ADMIN)).json().read_at).toBe(clock.now().toISOString());
    expect(await opsUnread()).toEqual({ messages: 0, conversations: 0 });
    clock.advance(1);
    await inject({ method: 'POST', url: '/merchant/support/messages', headers: tokenHeader(acct.accessToken), payload: { body: 'again' } });
    expect(await opsUnread()).toEqual({ messages: 1, conversations: 1 });
  });

  // Two reads at once (two tabs, or two processes): the one that lands last may carry the earlier
  // time; the mark stays at the later one, so what was read is not unread again.
  it('a read mark only moves forward: a read of an earlier time that lands after a later one leaves the later mark', async () => {
    const acct = await signupAccount(t.app);
    const opsRead = () => inject({ method: 'POST', url: `/admin/support/${acct.merchant.id}/read`, headers: ADMIN });
    await reply(acct.merchant.id, { body: 'first' });
    await post(acct.accessToken, 'hello');
    const early = clock.now();
    await reply(acct.merchant.id, { body: 'second' });
    await post(acct.accessToken, 'again');
    const late = (await read(acct.accessToken)).json().read_at;
    expect((await opsRead()).json().read_at).toBe(late);
    try {
      clock.set(early);
      const res = await inject({ method: 'POST', url: '/merchant/support/read', headers: tokenHeader(acct.accessToken) });
      expect([res.statusCode, res.json()]).toEqual([200, { side: 'merchant', read_at: late, unread: 0 }]);
      expect((await eventsOf(acct.merchant.id, 'support:read')).at(-1)?.data).toEqual(res.json());
      expect((await list(acct.accessToken)).json().unread).toBe(0);
      const ops = await opsRead();
      expect([ops.statusCode, ops.json()]).toEqual([200, { side: 'support', read_at: late, unread: 0 }]);
      expect((await inject({ method: 'GET', url: `/admin/support/${acct.merchant.id}/messages`, headers: ADMIN })).json().unread).toBe(0);
    } finally {
      clock.set(late);
    }
  });

  it('a deleted message is unread for no one: the operator\'s message list and conversation list leave it out', async () => {
    const acct = await signupAccount(t.app);
    await post(acct.accessToken, 'kept');
    const gone = (await post(acct.accessToken, 'taken back')).json().message.id;
    expect((await del(acct.accessToken, gone)).statusCode).toBe(200);
    const ops = (await inject({ method: 'GET', url: `/admin/support/${acct.merchant.id}/messages`, headers: ADMIN })).json();
    expect(ops.unread).toBe(1);
    const convs = (await inject({ method: 'GET', url: '/admin/support?limit=200', headers: ADMIN })).json().conversations;
    expect(convs.find((c: { merchant_id: string }) => c.merchant_id === acct.merchant.id)).toMatchObject({ unread: 1 });
  });

  it('a reply from support raises a `support` notification for every role, with the reply as subject', async () => {
    const acct = await signupAccount(t.app);
    const long = `${'x'.repeat(250)}`;
    const sent = (await reply(acct.merchant.id, { body: long })).json().message;
    const res = await inject({ method: 'GET', url: '/merchant/notifications?category=support', headers: tokenHeader(acct.accessToken) });
    expect(res.statusCode).toBe(200);
    const [n] = res.json().notifications;
    expect(n).toMatchObject({ category: 'support', title: 'Reply from support', subject: sent.id, livemode: true });
    expect(n.body).toBe(`${'x'.repeat(199)}…`);
    // A member's own message raises none.
    await post(acct.accessToken, 'thanks');
    expect((await inject({ method: 'GET', url: '/merchant/notifications?category=support', headers: tokenHeader(acct.accessToken) })).json().total).toBe(1);
  });

  it('a long reply whose excerpt would end inside an emoji is sent, and its notification cuts before the emoji', async () => {
    const acct = await signupAccount(t.app);
    // the 200th UTF-16 unit is the first half of 😀: a cut there left a lone surrogate, which
    // PostgreSQL's jsonb refuses, so the reply itself failed with 500
    const long = `${'a'.repeat(198)}😀😀😀`;
    const res = await reply(acct.merchant.id, { body: long });
    expect(res.statusCode, res.body).toBe(201);
    const [n] = (await inject({ method: 'GET', url: '/merchant/notifications?category=support', headers: tokenHeader(acct.accessToken) })).json().notifications;
    expect(n.body).toBe(`${'a'.repeat(198)}…`);
  });

  describeOperator();

  function describeOperator() {
    it('lists conversations newest first with merchant name, last message and support\'s unread count', async () => {
      const a = await signupAccount(t.app);
      const b = await signupAccount(t.app);
      await post(a.accessToken, 'a1');
      await post(b.accessToken, 'b1');
      await post(b.accessToken, 'b2');
      await post(a.accessToken, 'a2');
      const res = await inject({ method: 'GET', url: '/admin/support?limit=200', headers: ADMIN });
      expect(res.statusCode).toBe(200);
      const convs = res.json().conversations as { merchant_id: string }[];
      const ia = convs.findIndex((c) => c.merchant_id === a.merchant.id);
      const ib = convs.findIndex((c) => c.merchant_id === b.merchant.id);
      expect(ia).toBeLessThan(ib);
      expect(convs[ia]).toMatchObject({ merchant_name: a.merchant.name, unread: 2, last_message: { body: 'a2', side: 'merchant' } });
      expect(convs[ib]).toMatchObject({ merchant_name: b.merchant.name, unread: 2, last_message: { body: 'b2' } });
      expect(res.json()).toMatchObject({ limit: 200, offset: 0 });
      tick();
      const mark = await inject({ method: 'POST', url: `/admin/support/${b.merchant.id}/read`, headers: ADMIN });
      expect(mark.statusCode).toBe(200);
      expect(mark.json()).toEqual({ side: 'support', read_at: clock.now().toISOString(), unread: 0 });
      const after = (await inject({ method: 'GET', url: '/admin/support?limit=200', headers: ADMIN })).json().conversations;
      expect(after.find((c: { merchant_id: string }) => c.merchant_id === b.merchant.id).unread).toBe(0);
      const paged = (await inject({ method: 'GET', url: '/admin/support?limit=1&offset=-4', headers: ADMIN })).json();
      expect(paged).toMatchObject({ limit: 1, offset: 0 });
      expect(paged.conversations).toHaveLength(1);
    });

    it('posts support\'s reply as side `support` signed with a name, audits it as admin, and the merchant sees it', async () => {
      const acct = await signupAccount(t.app);
      const res = await reply(acct.merchant.id, { body: 'Your payout left today.', name: 'Ada' });
      expect(res.statusCode).toBe(201);
      const m = res.json().message;
      expect(m).toMatchObject({ side: 'support', author: { name: 'Ada' }, body: 'Your payout left today.', merchant_id: acct.merchant.id });
      const plain = (await reply(acct.merchant.id, { body: 'No name given' })).json().message;
      expect(plain.author).toEqual({ name: 'Support' });
      const seen = (await list(acct.accessToken)).json().messages.map((x: { id: string }) => x.id);
      expect(seen).toEqual([m.id, plain.id]);
      const audit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, acct.merchant.id), eq(auditEntries.subject, m.id)));
      expect(audit).toHaveLength(1);
      expect(audit[0].action).toBe('support_message.created');
      expect(audit[0].actor).toMatchObject({ kind: 'admin' });
      await inject({ method: 'POST', url: `/admin/support/${acct.merchant.id}/read`, headers: ADMIN });
      const readAudit = await h.db().orm.select().from(auditEntries).where(and(eq(auditEntries.merchantId, acct.merchant.id), eq(auditEntries.action, 'support.read')));
      expect(readAudit[0].actor).toMatchObject({ kind: 'admin' });
    });

    it('refuses a bad reply body or name with 400, an unknown merchant with 404, and a wrong token with 401', async () => {
      for (const payload of [{}, { body: '' }, { body: 'x'.repeat(4001) }, { body: `${'x'.repeat(4000)}\t` }, { body: 5 }]) {
        const res = await reply(owner.merchant.id, payload);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ error: BODY_INVALID });
      }
      const name = await reply(owner.merchant.id, { body: 'ok', name: 'n'.repeat(101) });
      expect(name.json()).toEqual({ error: 'name must be a string of at most 100 characters' });
      const nul = await reply(owner.merchant.id, { body: 'a\u0000' });
      expect(nul.json()).toEqual({ error: 'body must not contain NUL characters' });
      for (const [method, url] of [['GET', '/admin/support/mer_nope/messages'], ['POST', '/admin/support/mer_nope/messages'], ['POST', '/admin/support/mer_nope/read'], ['GET', '/admin/support/bad%20id/messages']] as const) {
        const res = await inject({ method, url, headers: ADMIN, ...(method === 'POST' ? { payload: { body: 'hi' } } : {}) });
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toEqual({ error: 'not found' });
      }
      for (const [method, url] of [['GET', '/admin/support'], ['GET', `/admin/support/${owner.merchant.id}/messages`], ['POST', `/admin/support/${owner.merchant.id}/messages`], ['POST', `/admin/support/${owner.merchant.id}/read`]] as const) {
        const res = await inject({ method, url, headers: { authorization: 'Bearer wrong' }, ...(method === 'POST' ? { payload: { body: 'hi' } } : {}) });
        expect(res.statusCode, url).toBe(401);
        expect(res.json()).toEqual({ error: 'invalid admin token' });
      }
    });

    it('answers a merchant\'s token on the operator routes with 401 (a member is not the operator)', async () => {
      const res = await inject({ method: 'GET', url: '/admin/support', headers: tokenHeader(owner.accessToken) });
      expect(res.statusCode).toBe(401);
    });
  }
});
