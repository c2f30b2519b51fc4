// GET /openapi.json against the app: every public route described and nothing else, a valid
// OpenAPI 3.1 document, recorded answers of real requests valid against their response schemas
// (errors carrying a message the document lists), and GET /docs served from this service alone.
import { noCurrentPriceMessage } from '../../src/market/index.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { openTestDatabase } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, uid, type Account } from '../harness/accounts.ts';
import { openApiPath, ROUTE_DOCS, takesIdempotencyKey, type RouteDoc } from '../../src/openapi/index.ts';
import { PAYMENT_URL_PREFIX, URL_NOT_HTTPS, URL_TOO_LONG } from '../../src/webhooks/url-policy.ts';
import { dateMessage } from '../../src/audit/query.ts';
import { GIVEN_ONCE_ERRORS } from '../../src/payments/index.ts';
import { unsupportedToken } from '../../src/settlement/address-rules.ts';
import { TOO_MANY_DECIMALS } from '../../src/affiliate/payouts/errors.ts';
import { BELOW_MINIMUM_ERRORS, URL_ERRORS, usdFieldErrors } from '../../src/openapi/routes/v1.ts';
import { unsupportedToken as unknownToken } from '../../src/tokens/catalog.ts';
import { noContract, noNode, notEnabled } from '../../src/payments/coin.ts';
import { DESCRIPTION_TOO_LONG, pageUrlMessage, pageUrlTooLongMessage, positiveDecimalMessage, SIMULATE_UNKNOWN } from '../../src/payments/create-input.ts';
import { METADATA_TOO_LARGE, nulMessage, textMessage } from '../../src/platform/fields.ts';
import { mustBeBoolean } from '../../src/accounts/settings-patch.ts';
import { MERCHANT_NAME_TOO_LONG } from '../../src/accounts/signup.ts';
import { CATEGORY_MESSAGE } from '../../src/notifications/index.ts';
import { onlyFailedResolve, STATUS_FILTER_MESSAGE } from '../../src/webhooks/delivery-store.ts';
import { PAYOUT_STATUS_INVALID } from '../../src/settlement/payouts/payout-service.ts';
import { invalidAddressMessage } from '../../src/chains/addresses/validate.ts';
import { MIN_PAYOUT_MESSAGE } from '../../src/settlement/payouts/payout-math.ts';
import { Q_INVALID } from '../../src/customers/input.ts';
import { ORDER_ID_TOO_LONG, Q_TOO_LONG, givenOnce } from '../../src/payments/list-filters.ts';
import { SETTLEMENT_MODE_INVALID, SETTLEMENT_STATUS_INVALID } from '../../src/settlement/statement.ts';
import { BODY_INVALID, MAX_BODY } from '../../src/support/index.ts';
import { STORE_NAME_INVALID, STORE_NAME_MAX } from '../../src/accounts/stores.ts';
import { coveredRoute, IDEMPOTENCY_KEY_LENGTH } from '../../src/idempotency/hooks.ts';
import { DASHBOARD_ROUTES } from '../../src/accounts/index.ts';
import { BODY_LIMIT_BYTES, bodyDepthMessage } from '../../src/platform/http/body.ts';
import { DATABASE_BUSY, DATABASE_BUSY_RETRY_S } from '../../src/platform/errors.ts';
import { surrogateMessage } from '../../src/platform/fields.ts';
import { ADDRESS_NOT_ACTIVE_EXAMPLE, PAYOUT_QUOTE_ERRORS } from '../../src/openapi/routes/merchant-money.ts';
import { amountBelowFee, balanceHolds } from '../../src/settlement/payouts/payout-store.ts';
import { belowNetworkFee, referralBalanceHolds } from '../../src/affiliate/payouts/errors.ts';
import { OWN_ADDRESS, tokenContractAddress } from '../../src/chains/wallets/own-addresses.ts';
import { raisedMessages } from '../harness/raised-messages.ts';
import { eq } from 'drizzle-orm';
import { payments } from '../../src/payments/index.ts';
import { noOtherAsset, notSimulatable } from '../../src/payments/simulation.ts';
import { ADDR, input, payment } from '../harness/settlement.ts';
import { LIST_AUDIT, LIST_DEFAULT, LIST_EVENTS, LIST_LEDGER, type ListRule } from '../../src/platform/list-params.ts';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown; examples?: Record<string, { value: { error: string } }> }> }> }>> };

const PUBLIC = /^\/(v1|checkout|tokens|merchant|l|referrals)(\/|$)/;
// Left out on purpose: the operator's routes and /metrics (ADMIN_TOKEN), the readiness probe, the
// document and its reference page, and the HTML pages (the checkout page, the dashboard's pages and assets).
const DASHBOARD_PAGES = ['', 'account', 'audit', 'customers', 'developers', 'invitations/accept', 'invite', 'links', 'money', 'notifications', 'payments', 'referral-program', 'settings', 'signin', 'signup', 'stores', 'support', 'team'];
const OUTSIDE_THE_DOCUMENT = new RegExp(`^/(admin(/.*)?|metrics|healthz|openapi\\.json|docs(/scalar\\.js)?|pay/\\*|pay/assets/:file|assets/:file|payments/:id|(${DASHBOARD_PAGES.join('|')}))$`);

/**
 * The document with every object it describes property by property closed to others, so an answer
 * carrying a field the document does not name fails (clients may ignore unknown fields; the
 * document should still name them).
 */
function closedDocument(doc: Doc): object {
  const strict = structuredClone(doc) as object;
  const closeObjects = (s: unknown): void => {
    if (Array.isArray(s)) { s.forEach(closeObjects); return; }
    if (!s || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    if (o.type === 'object' && o.properties && !('additionalProperties' in o)) o.additionalProperties = false;
    Object.values(o).forEach(closeObjects);
  };
  closeObjects((strict as { paths: unknown }).paths);
  closeObjects((strict as { components: unknown }).components);
  return strict;
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let disposeDb: () => Promise<void>;
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let doc: Doc;
  let acct: Account;
  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    disposeDb = opened.dispose;
    t = await startTestApp(opened.db);
    acct = await signupAccount(t.app);
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(async () => { await t.close(); await disposeDb(); });

  it('states every list\'s limit as the bounds its handler applies (list-params.ts)', () => {
    // the lists on another rule than LIST_DEFAULT; the text follows the constant when it changes
    const rules: Record<string, ListRule> = { '/merchant/ledger': LIST_LEDGER, '/merchant/audit': LIST_AUDIT, '/merchant/payments/{id}/events': LIST_EVENTS };
    const stated: Record<string, unknown> = {};
    const expected: Record<string, string> = {};
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops as Record<string, { parameters?: { name: string; in: string; schema: { description?: string } }[] }>)) {
        const limit = op.parameters?.find((x) => x.in === 'query' && x.name === 'limit');
        if (!limit) continue;
        const rule = rules[p] ?? LIST_DEFAULT;
        stated[`${m} ${p}`] = limit.schema.description;
        expected[`${m} ${p}`] = `1 to ${rule.max}, default ${rule.dflt}`;
      }
    }
    expect(Object.keys(stated).length).toBeGreaterThan(10);
    expect(stated).toEqual(expected);
  });

  it('describes every public route of the app, and only those', () => {
    // Every route is either public or one the document leaves out on purpose, so a route on a new
    // surface (neither) fails here instead of passing unseen.
    const unclassified = t.app.routeTable.filter((r) => !PUBLIC.test(r.url) && !OUTSIDE_THE_DOCUMENT.test(r.url)).map((r) => `${r.method} ${r.url}`);
    expect(unclassified, 'routes on neither a public surface (PUBLIC) nor one the document leaves out (OUTSIDE_THE_DOCUMENT)').toEqual([]);
    const registered = new Set(t.app.routeTable.filter((r) => PUBLIC.test(r.url)).map((r) => `${r.method} ${openApiPath(r.url)}`));
    const described = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
    const missing = [...registered].filter((r) => !described.has(r)).sort();
    const extra = [...described].filter((r) => !registered.has(r)).sort();
    expect(missing, `routes with no description: add a RouteDoc for each to src/openapi/routes/ (see src/openapi/describe.ts):\n${missing.join('\n')}`).toEqual([]);
    expect(extra, `described routes the app does not register:\n${extra.join('\n')}`).toEqual([]);
  });

  it('is a valid OpenAPI 3.1 document with security schemes, the error shape and the webhook events', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const full = doc as unknown as { components: { securitySchemes: object; schemas: Record<string, unknown> }; webhooks: Record<string, unknown> };
    expect(Object.keys(full.components.securitySchemes).sort()).toEqual(['accessToken', 'apiKeyBearer', 'apiKeyHeader']);
    expect(full.components.schemas.Error).toMatchObject({ required: ['error'] });
    expect(Object.keys(full.webhooks)).toEqual(expect.arrayContaining(['payment.confirmed', 'settlement.completed', 'payout.sent', 'ping']));
    expect(Object.keys(full.webhooks)).toHaveLength(14);
  });

  it('gives null only to the fields the spec gives null: a webhook\'s url and a referral\'s earns_until (CONTRACT.md \'Values and formats\')', () => {
    // Every other optional field of an answer is absent when it does not apply, so a client built
    // from the document must not be told to expect null there.
    const found: string[] = [];
    const walk = (s: unknown, where: string): void => {
      if (Array.isArray(s)) { s.forEach((x, i) => walk(x, `${where}[${i}]`)); return; }
      if (!s || typeof s !== 'object') return;
      const o = s as Record<string, unknown>;
      for (const [k, v] of Object.entries((o.properties ?? {}) as Record<string, { anyOf?: { type?: string }[] }>)) {
        if (v.anyOf?.some((x) => x.type === 'null')) found.push(`${where}.${k}`);
      }
      for (const [k, v] of Object.entries(o)) walk(v, k === 'properties' ? where : `${where}/${k}`);
    };
    const full = doc as unknown as { components: { schemas: Record<string, unknown> } };
    for (const [name, schema] of Object.entries(full.components.schemas)) walk(schema, name);
    for (const [p, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) walk(op.responses, `${method} ${p}`);
    expect(found.map((f) => f.replace(/\/properties|\/items|\/anyOf\[\d\]/g, ''))).toEqual(['Webhook.url', 'Referral.earns_until']);
  });

  it('describes every object it answers field by field, but the merchant\'s own metadata and an event\'s data (which vary)', () => {
    // An object with no properties tells a client (and the generated SDK) nothing: each fixed
    // object is described by its fields, a map by the type of its values.
    const loose: string[] = [];
    const walk = (s: unknown, where: string): void => {
      if (Array.isArray(s)) { s.forEach((x, i) => walk(x, `${where}[${i}]`)); return; }
      if (!s || typeof s !== 'object') return;
      const o = s as Record<string, unknown>;
      if (o.type === 'object' && !o.properties && !o.additionalProperties && !/\.(metadata|data)$/.test(where)) loose.push(where);
      for (const [k, v] of Object.entries(o)) walk(v, k === 'properties' || k === 'schemas' ? where : `${where}.${k}`);
    };
    const full = doc as unknown as { components: { schemas: Record<string, unknown> }; webhooks: unknown };
    walk(full.components.schemas, 'components');
    walk(doc.paths, 'paths');
    walk(full.webhooks, 'webhooks');
    expect(loose).toEqual([]);
  });

  it('lists only error messages the code really has (each one appears in src/)', () => {
    const root = path.resolve(import.meta.dirname, '../../src');
    const sources = fs.readdirSync(root, { recursive: true }).map(String)
      .filter((f) => f.endsWith('.ts') && !f.startsWith('openapi') && !f.endsWith('.test.ts'))
      .map((f) => fs.readFileSync(path.join(root, f), 'utf8')).join('\n');
    const messages = new Set<string>();
    for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) for (const r of Object.values(op.responses)) {
      for (const ex of Object.values(r.content?.['application/json']?.examples ?? {})) messages.add(ex.value.error);
    }
    expect(messages.size).toBeGreaterThan(50);
    // Messages the code puts together from parts, built here by the code's own builders.
    const composed = new Set([
      `${PAYMENT_URL_PREFIX}${URL_NOT_HTTPS}`, dateMessage('from'), dateMessage('to'), unsupportedToken(true), TOO_MANY_DECIMALS, ...GIVEN_ONCE_ERRORS,
      ...usdFieldErrors('amount_usd'), unknownToken('DOGE2'), notEnabled('XRP'), noNode('ETH'), noContract('USDT_ERC20'), pageUrlMessage('success_url'), pageUrlMessage('cancel_url'),
      pageUrlTooLongMessage('success_url'), pageUrlTooLongMessage('cancel_url'), URL_TOO_LONG, ...URL_ERRORS.map((m) => `${PAYMENT_URL_PREFIX}${m}`), ...['accept_other_assets', 'fees_paid_by_customer', 'hide_below_minimum'].map(mustBeBoolean),
      CATEGORY_MESSAGE, STATUS_FILTER_MESSAGE, PAYOUT_STATUS_INVALID, onlyFailedResolve('pending'), invalidAddressMessage('ethereum'), MIN_PAYOUT_MESSAGE, Q_INVALID, Q_TOO_LONG, ORDER_ID_TOO_LONG, ...BELOW_MINIMUM_ERRORS,
      DESCRIPTION_TOO_LONG, METADATA_TOO_LARGE, SIMULATE_UNKNOWN, positiveDecimalMessage('price_amount'), textMessage('name', 200), ...['order_id', 'name', 'description'].map(nulMessage),
      ADDRESS_NOT_ACTIVE_EXAMPLE, ...PAYOUT_QUOTE_ERRORS, balanceHolds('USDT_TRC20', 12_500_000n), amountBelowFee('USDT_TRC20', 1_000_000n), belowNetworkFee(1_000_000n), referralBalanceHolds(12_500_000n),
      tokenContractAddress('USDT_ERC20'), tokenContractAddress('USDT_TRC20'), noCurrentPriceMessage('BNB'),
      notSimulatable('confirmed'), noOtherAsset('BTC'), SETTLEMENT_STATUS_INVALID, SETTLEMENT_MODE_INVALID, givenOnce('payment_id'), MERCHANT_NAME_TOO_LONG,
    ]);
    // What the body parser refuses in any body, named by the top-level field.
    const bodyField = (m: string) => { const field = m.split(' ')[0]; return [nulMessage(field), surrogateMessage(field), bodyDepthMessage(field)].includes(m); };
    const unknown = [...messages].filter((m) => !composed.has(m) && !bodyField(m) && !sources.includes(m.replace(/'/g, "\\'")) && !sources.includes(m));
    expect(unknown).toEqual([]);
  });

  it('lists every fixed message the code raises (the operator\'s routes aside)', () => {
    // by status: a message listed under another status than the one it is raised with misleads a client
    const listed = new Set<string>();
    for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) for (const [status, r] of Object.entries(op.responses)) {
      for (const ex of Object.values(r.content?.['application/json']?.examples ?? {})) listed.add(`${status} ${ex.value.error}`);
    }
    // Code only /admin routes reach, and the pages outside the document (/pay/*, /dashboard).
    const operatorOnly = /^(openapi|admin)\/|^(accounts\/admin-merchants|affiliate\/(adjustments|enroll|routes\/admin-routes)|settlement\/(adjustments|failed-settlements)|mail\/operator|realtime\/(checkout|dashboard)-page)\.ts$/;
    const operatorMessages = new Set([
      'note is required', 'tx_id is required', 'payout is being sent by the service', // payout review: POST /admin/payouts/:id/{reject,mark-sent,approve}
      'this merchant has a referral already', 'this referral is void already', // POST /admin/merchants/:id/referral/void
    ]);
    const raised = raisedMessages(path.resolve(import.meta.dirname, '../../src'), (f) => operatorOnly.test(f));
    expect(raised.length).toBeGreaterThan(100);
    const missing = raised.filter((r) => !listed.has(`${r.status} ${r.message}`) && !operatorMessages.has(r.message)).map((r) => `${r.file}:${r.line} ${r.status} ${r.message}`);
    expect(missing, 'messages the code raises that no route of the document lists under their status: add each to the errors of its routes in src/openapi/routes/').toEqual([]);
  });

  it('says a key\'s answer is stored and replayed on exactly the routes whose hook stores it: a POST under /v1 or /merchant with a credential', () => {
    const storing = (r: RouteDoc) => coveredRoute({ method: r.method, url: r.path }) && r.auth !== 'none';
    expect(ROUTE_DOCS.filter(storing).length).toBeGreaterThan(20);
    for (const r of ROUTE_DOCS) {
      expect(takesIdempotencyKey(r), `${r.method} ${r.path}`).toBe(storing(r));
      // the hook has no way out for a route, so neither has its description (no opt-out field)
      expect(takesIdempotencyKey({ ...r, noIdempotency: true } as RouteDoc), `${r.method} ${r.path}`).toBe(storing(r));
      const header = ((doc.paths[openApiPath(r.path)][r.method.toLowerCase()] as unknown as { parameters?: { name: string; description: string }[] }).parameters ?? []).find((p) => p.name === 'Idempotency-Key');
      expect(header?.description.includes('is stored for 24 hours') ?? false, `${r.method} ${r.path}`).toBe(storing(r));
    }
  });

  it('lists the refusal of a bad Idempotency-Key on every route that checks the key, with a credential or without', () => {
    const checked = t.app.routeTable.filter((r) => PUBLIC.test(r.url) && coveredRoute({ method: r.method as 'POST', url: r.url }));
    expect(checked.filter((r) => !r.url.startsWith('/v1') && !DASHBOARD_ROUTES.has(`${r.method} ${r.url}`)).length, 'routes without a credential').toBeGreaterThan(3);
    const missing = checked.filter((r) => !Object.values(doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()]?.responses['400']?.content?.['application/json']?.examples ?? {})
      .some((e) => e.value.error === IDEMPOTENCY_KEY_LENGTH)).map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });

  it('declares the 503 of a coin with no current price, with its Retry-After, on the routes that price a live coin (the service sends RATE_REFRESH_S: market-live)', () => {
    type Op = { responses: Record<string, { headers?: Record<string, unknown>; content?: { 'application/json'?: { examples?: Record<string, { value: { error: string } }> } } }> };
    const answers = (method: string, p: string) => (doc.paths[p]?.[method] as unknown as Op | undefined)?.responses['503'];
    for (const [method, p] of [['post', '/v1/payments'], ['post', '/v1/payments/{id}/token'], ['post', '/checkout/{checkoutToken}/token'], ['post', '/l/{slug}/payments']]) {
      const r = answers(method, p);
      // with the database's own 503 (every route that reads a row answers it: the test below)
      expect(Object.values(r?.content?.['application/json']?.examples ?? {}).map((e) => e.value.error), `${method} ${p}`).toEqual(['no current price for BNB: try again shortly', DATABASE_BUSY]);
      expect(r?.headers?.['Retry-After'], `${method} ${p}`).toBeDefined();
    }
  });

  it('declares 429, with its Retry-After, on every route a rate limit answers (each route called while every limit refuses)', async () => {
    // Every limit of the service counts in the accounts' limiter (per IP, per key, per user, the
    // password re-checks) or the affiliate's burst limiter; with both refusing, a route answers 429
    // exactly when a limit guards it, wherever in the code that limit is.
    const owner = await signupAccount(t.app);
    // The password re-checks' limit guards the re-check alone: those routes are called with a body
    // that reaches it (an address of the member's own to move, another to add).
    const own = await t.app.inject({ method: 'POST', url: '/merchant/payout-addresses', headers: tokenHeader(owner.accessToken),
      payload: { token: 'USDT_TRC20', address: ADDR.TRON, password: owner.password } });
    const rechecked: Record<string, { url?: string; payload: Record<string, unknown> }> = {
      'POST /merchant/payout-addresses': { payload: { token: 'USDT_TRC20', address: ADDR.TRON_2, password: 'not-the-password' } },
      'PATCH /merchant/payout-addresses/:id': { url: `/merchant/payout-addresses/${own.json().address.id}`, payload: { address: ADDR.TRON_3, password: 'not-the-password' } },
      // a body refused before its password is checked answers its 400, limit or not
      'POST /merchant/me/password': { payload: { current_password: 'not-the-password', new_password: 'a-new-password-1' } },
    };
    const spies = [
      vi.spyOn(t.services.accounts.limiter, 'take').mockResolvedValue(false),
      vi.spyOn(t.services.accounts.limiter, 'count').mockResolvedValue(Number.MAX_SAFE_INTEGER),
      vi.spyOn(t.services.affiliate.limiter, 'take').mockResolvedValue(false),
    ];
    type Op = { responses: Record<string, { headers?: Record<string, unknown> }> };
    const opOf = (method: string, url: string) => doc.paths[openApiPath(url)]?.[method.toLowerCase()] as unknown as Op | undefined;
    const answered: string[] = [];
    const problems: string[] = [];
    try {
      // the sign-outs last: they end the session the other calls use
      const routes = t.app.routeTable.filter((r) => PUBLIC.test(r.url)).sort((a, b) => Number(a.url.startsWith('/merchant/auth/')) - Number(b.url.startsWith('/merchant/auth/')));
      for (const r of routes) {
        const headers = r.url.startsWith('/v1/') ? keyHeader(owner.testKey) : tokenHeader(owner.accessToken);
        const given = rechecked[`${r.method} ${r.url}`];
        const res = await t.app.inject({
          method: r.method as InjectOptions['method'], url: given?.url ?? r.url.replace(/:[A-Za-z0-9_]+/g, 'x0'), headers, remoteAddress: randomIp(),
          ...(['POST', 'PUT', 'PATCH'].includes(r.method) ? { payload: given?.payload ?? {} } : {}),
        });
        if (res.statusCode !== 429) continue;
        const route = `${r.method} ${r.url}`;
        answered.push(route);
        if (!res.headers['retry-after']) problems.push(`${route}: answered 429 without Retry-After`);
        const declared = opOf(r.method, r.url)?.responses['429'];
        if (!declared) problems.push(`${route}: answers 429, which the document does not list`);
        else if (!declared.headers?.['Retry-After']) problems.push(`${route}: its 429 does not name Retry-After`);
      }
    } finally {
      for (const s of spies) s.mockRestore();
    }
    // each kind of limit was met: per key (/v1), per IP (sign-in, checkout, links), per user
    // (password re-checks, e-mail probes) and the referral payouts' bursts
    expect(answered).toEqual(expect.arrayContaining(['GET /v1/payments', 'POST /merchant/login', 'POST /checkout/:checkoutToken/token', 'GET /l/:slug',
      'POST /merchant/payout-addresses', 'POST /merchant/users', 'POST /merchant/affiliate/payouts']));
    expect(problems).toEqual([]);
    // and no route declares a 429 it never answers
    const declaredOnly = Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => op.responses['429']).map(([m]) => `${m.toUpperCase()} ${p}`))
      .filter((d) => !answered.some((a) => { const [m, u] = a.split(' '); return `${m} ${openApiPath(u)}` === d; }));
    expect(declaredOnly).toEqual([]);
  });

  it('states the bounds of a support message\'s body the code enforces (MAX_BODY), on writing and on editing', () => {
    type Body = { required?: string[]; properties: { body: { minLength?: number; maxLength?: number; description?: string } } };
    const bodyOf = (m: string) => (doc.paths['/merchant/support/messages' + (m === 'patch' ? '/{id}' : '')][m] as unknown as { requestBody: { content: { 'application/json': { schema: Body } } } }).requestBody.content['application/json'].schema;
    const errors = (m: string) => Object.values(doc.paths['/merchant/support/messages' + (m === 'patch' ? '/{id}' : '')][m].responses['400']?.content?.['application/json']?.examples ?? {}).map((e) => e.value.error);
    for (const m of ['post', 'patch']) {
      expect(bodyOf(m).required, m).toEqual(['body']);
      expect(bodyOf(m).properties.body, m).toMatchObject({ minLength: 1, maxLength: MAX_BODY });
      // maxLength holds for the body as sent (the code counts before trimming), and says so
      expect(bodyOf(m).properties.body.description, m).toMatch(new RegExp(`at most ${MAX_BODY} characters \\(code points\\) as sent, white space included`));
      expect(errors(m), m).toContain(BODY_INVALID);
    }
  });

  it('states the bounds of a store\'s and a payment link\'s name the code enforces (STORE_NAME_MAX), as sent', () => {
    type Body = { properties: { name: { minLength?: number; maxLength?: number; description?: string } } };
    const bodyOf = (p: string, m: string) => (doc.paths[p][m] as unknown as { requestBody: { content: { 'application/json': { schema: Body } } } }).requestBody.content['application/json'].schema;
    const errors = (p: string, m: string) => Object.values(doc.paths[p][m].responses['400']?.content?.['application/json']?.examples ?? {}).map((e) => e.value.error);
    for (const [p, m] of [['/merchant/stores', 'post'], ['/merchant/stores/{id}', 'patch'], ['/merchant/links', 'post'], ['/merchant/links/{id}', 'patch']]) {
      expect(bodyOf(p, m).properties.name, `${m} ${p}`).toMatchObject({ minLength: 1, maxLength: STORE_NAME_MAX });
      // maxLength holds for the name as sent (the code counts before trimming), and says so
      expect(bodyOf(p, m).properties.name.description, `${m} ${p}`).toMatch(new RegExp(`at most ${STORE_NAME_MAX} characters \\(code points\\) as sent, white space included`));
      expect(errors(p, m), `${m} ${p}`).toContain(STORE_NAME_INVALID);
    }
  });

  it('lists the coin choice\'s and simulate\'s refusals of spec 7 on every route that answers them (checkout, /v1, dashboard)', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(closedDocument(doc), 'openapi');
    const k = keyHeader(acct.testKey);
    const tk = tokenHeader(acct.accessToken);
    const make = async (body: Record<string, unknown>) => {
      const res = await t.app.inject({ method: 'POST', url: '/v1/payments', headers: k, payload: { order_id: `o-${uid()}`, amount_usd: '25', ...body } });
      expect(res.statusCode).toBe(201);
      return res.json();
    };
    const problems: string[] = [];
    const answers: string[] = [];
    const call = async (route: string, opts: InjectOptions) => {
      const res = await t.app.inject({ remoteAddress: randomIp(), ...opts });
      answers.push(`${route} ${res.statusCode} ${res.body}`);
      problems.push(...answerProblems(ajv, route, res));
    };
    // The coin choice of a coin the price is too small for (a $4 payment; BTC takes $5 and up).
    const small = await make({ amount_usd: '4' });
    await call('POST /checkout/{checkoutToken}/token', { method: 'POST', url: `/checkout/${small.checkout_token}/token`, payload: { token: 'BTC' } });
    await call('POST /v1/payments/{id}/token', { method: 'POST', url: `/v1/payments/${small.id}/token`, headers: k, payload: { token: 'BTC' } });
    // An unknown outcome, wrong_asset on a BTC address, a payment no longer pending.
    const btc = await make({ token: 'BTC' });
    // (marked confirmed in its row: a simulation would take its steps' time)
    const closed = await make({ token: 'ETH' });
    await t.platform.db.orm.update(payments).set({ status: 'confirmed' }).where(eq(payments.id, closed.id));
    const simulations: [string, (p: Record<string, string>) => string, Record<string, string>][] = [
      ['POST /checkout/{checkoutToken}/simulate', (p) => `/checkout/${p.checkout_token}/simulate`, {}],
      ['POST /v1/payments/{id}/simulate', (p) => `/v1/payments/${p.id}/simulate`, k],
      ['POST /merchant/payments/{id}/simulate', (p) => `/merchant/payments/${p.id}/simulate`, tk],
    ];
    for (const [route, url, headers] of simulations) {
      await call(route, { method: 'POST', url: url(btc), headers, payload: { outcome: 'bogus' } });
      await call(route, { method: 'POST', url: url(btc), headers, payload: { outcome: 'wrong_asset' } });
      await call(route, { method: 'POST', url: url(closed), headers, payload: { outcome: 'confirmed' } });
    }
    expect(answers.every((a) => / 400 \{"error":/.test(a)), answers.join('\n')).toBe(true);
    expect(problems).toEqual([]);
  });

  it('lists the refusals of the hosted link page (GET /l/{slug}) as those of POST /l/{slug}/payments: it makes the same payment', () => {
    const statuses = (p: string, m: string) => Object.fromEntries(Object.entries(doc.paths[p][m].responses)
      .filter(([code]) => /^[45]/.test(code))
      .map(([code, r]) => [code, Object.values(r.content?.['application/json']?.examples ?? {}).map((e) => e.value.error).sort()]));
    // the page takes no body: what POST refuses in its body (customer_email, the body itself) is not the page's
    const { 413: _tooLarge, ...post } = statuses('/l/{slug}/payments', 'post');
    post['400'] = post['400'].filter((m) => !m.startsWith('customer_email') && m !== 'invalid request body');
    expect(post['403']).toEqual(['this link is not taking payments right now']);
    expect(statuses('/l/{slug}', 'get')).toEqual(post);
  });

  it('says the e-mail preferences\' categories are those of the member\'s role now, as GET shows and PATCH takes them (src/mail/preferences.ts asSeenBy)', () => {
    type Op = { requestBody?: { content: { 'application/json': { schema: { properties: { categories: { description?: string } } } } } }; responses: Record<string, { content: { 'application/json': { schema: { properties: { email_notifications: { properties: { categories: { description?: string } } } } } } } }> };
    const op = (m: string) => doc.paths['/merchant/me/email-notifications'][m] as unknown as Op;
    for (const m of ['get', 'patch']) {
      const shown = op(m).responses['200'].content['application/json'].schema.properties.email_notifications.properties.categories.description ?? '';
      expect(shown, m).toMatch(/of my current role/);
      expect(shown, m).toMatch(/chosen under another role.*kept.*neither shown nor mailed.*comes back with that role/);
    }
    const taken = op('patch').requestBody!.content['application/json'].schema.properties.categories.description ?? '';
    expect(taken).toMatch(/the whole new list of the categories of my current role/);
    expect(taken).toMatch(/those chosen under another role are kept/);
  });

  it('lists the refusal of a stored payout address the gateway refuses on the payout quote and request', () => {
    // the address is checked again when it would be paid (an address stored before the check):
    // its refusal is built at run time, so the fixed-message test above cannot see it
    const listed = (p: string, m: string) => Object.values(doc.paths[p][m].responses['400']?.content?.['application/json']?.examples ?? {}).map((e) => e.value.error);
    for (const [p, m] of [['/merchant/payouts/quote', 'get'], ['/merchant/payouts', 'post']]) {
      expect(listed(p, m), `${m} ${p}`).toEqual(expect.arrayContaining([OWN_ADDRESS, tokenContractAddress('USDT_TRC20')]));
    }
  });

  /**
   * What is wrong with an answer against the route's entry: a status it does not declare, a body its
   * schema refuses (the document closed to unnamed fields), an error message it does not list.
   */
  function answerProblems(ajv: Ajv2020, route: string, res: LightMyRequestResponse): string[] {
    const [method, p] = route.split(' ');
    const op = doc.paths[p]?.[method.toLowerCase()];
    if (!op) return [`${route}: not in the document`];
    const answer = op.responses[String(res.statusCode)];
    if (!answer) return [`${route}: answered ${res.statusCode}, which the document does not list (${res.body.slice(0, 120)})`];
    const media = answer.content?.['application/json'];
    if (!media) return [];
    const pointer = `openapi#/paths/${p.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${res.statusCode}/content/application~1json/schema`;
    const validate = ajv.getSchema(pointer);
    if (!validate) return [`${route}: no schema at ${pointer}`];
    let body: unknown;
    try { body = res.json(); } catch { return [`${route} ${res.statusCode}: not JSON (${res.body.slice(0, 120)})`]; }
    if (!validate(body)) return [`${route} ${res.statusCode}: ${ajv.errorsText(validate.errors)}`];
    if (res.statusCode >= 400) {
      // A time in a message (an address's active_at) is the example's own.
      const untimed = (m: string) => m.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
      const listed = Object.values(media.examples ?? {}).map((e) => untimed(e.value.error));
      if (!listed.includes(untimed((body as { error: string }).error))) return [`${route} ${res.statusCode}: message "${(body as { error: string }).error}" is not listed`];
    }
    return [];
  }

  /** Every public route, the sign-outs last (they end the session the other calls use). */
  const publicRoutes = () => t.app.routeTable.filter((r) => PUBLIC.test(r.url))
    .sort((a, b) => Number(a.url.startsWith('/merchant/auth/')) - Number(b.url.startsWith('/merchant/auth/')));
  const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
  const credentialOf = (url: string, a: Account) => (url.startsWith('/v1/') ? keyHeader(a.testKey) : tokenHeader(a.accessToken));

  it('answers a request without its credential, with a malformed or oversized body, or naming an unknown id, only as its route\'s entry declares', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(closedDocument(doc), 'openapi');
    const problems: string[] = [];
    const answered = new Map<string, Set<number>>();
    const send = async (r: { method: string; url: string }, opts: Omit<InjectOptions, 'method'>) => {
      const res = await t.app.inject({ method: r.method as InjectOptions['method'], remoteAddress: randomIp(), ...opts });
      const route = `${r.method} ${openApiPath(r.url)}`;
      (answered.get(route) ?? answered.set(route, new Set()).get(route)!).add(res.statusCode);
      problems.push(...answerProblems(ajv, route, res).map((x) => `${x} [${String(opts.url)}]`));
      return res;
    };
    const unknownId = (url: string) => url.replace(/:[A-Za-z0-9_]+/g, 'nope0');
    const withBody = (r: { method: string }, payload: unknown) => (BODY_METHODS.includes(r.method) ? { payload: payload as InjectOptions['payload'] } : {});
    // 1. no credential (an unknown id, an empty body)
    for (const r of publicRoutes()) await send(r, { url: unknownId(r.url), ...withBody(r, {}) });
    // 2. a body that is not JSON, one that is JSON but no object, and one past the size limit
    let owner = await signupAccount(t.app);
    for (const r of publicRoutes().filter((x) => BODY_METHODS.includes(x.method))) {
      const headers = { ...credentialOf(r.url, owner), 'content-type': 'application/json' };
      await send(r, { url: unknownId(r.url), headers, payload: '{"not json' });
      await send(r, { url: unknownId(r.url), headers, payload: '["an array"]' });
      await send(r, { url: unknownId(r.url), headers, payload: `{"x":"${'x'.repeat(BODY_LIMIT_BYTES)}"}` });
    }
    // 3. with its credential, an unknown id and an empty body
    owner = await signupAccount(t.app);
    for (const r of publicRoutes()) await send(r, { url: unknownId(r.url), headers: credentialOf(r.url, owner), ...withBody(r, {}) });
    expect(answered.size).toBeGreaterThan(90);
    expect(problems).toEqual([]);
  });

  it('declares the database\'s 503, with its Retry-After, on exactly the routes that answer it (each route called while the database refuses connections)', async () => {
    // PostgreSQL's refusal of a connection (53300, too many clients) is what the pool gives a
    // request once the server has stayed full past its patience (full-server.test.ts makes it for
    // real): here the engine gives it to every statement, so a route answers it as soon as it reads
    // or writes anything.
    const owner = await signupAccount(t.app);
    // The routes without a credential that refuse an empty body before any row are sent what reaches one.
    const code = (await t.app.inject({ method: 'GET', url: '/merchant/affiliate', headers: tokenHeader(owner.accessToken) })).json().code as string;
    const invited = await t.app.inject({ method: 'POST', url: '/merchant/invitations', headers: tokenHeader(owner.accessToken), payload: { email: `i-${uid()}@example.com`, role: 'viewer' } });
    const inviteToken = new URL(invited.json().accept_url).searchParams.get('token') ?? String(invited.json().accept_url).split('/').pop();
    const given: Record<string, { url?: string; headers?: Record<string, string>; payload?: Record<string, unknown> }> = {
      'POST /merchant/signup': { payload: { merchant_name: 'Busy shop', email: `busy-${uid()}@example.com`, password: owner.password } },
      'POST /merchant/login': { payload: { email: owner.email, password: owner.password } },
      'POST /merchant/auth/refresh': { headers: { cookie: owner.refreshCookie ?? '' } },
      'POST /merchant/invitations/accept': { payload: { token: inviteToken, password: 'a-long-password' } },
      'POST /referrals/:code/click': { url: `/referrals/${code}/click` },
    };
    const pglite = opened.db.pglite!;
    const refused = () => Promise.reject(Object.assign(new Error('sorry, too many clients already'), { code: '53300' }));
    type Op = { responses: Record<string, { headers?: Record<string, unknown>; content?: { 'application/json'?: { examples?: Record<string, { value: { error: string } }> } } }> };
    /** The route's 503 when it lists the database's message. */
    const busyAnswer = (method: string, p: string) => {
      const r = (doc.paths[p]?.[method.toLowerCase()] as unknown as Op | undefined)?.responses['503'];
      return Object.values(r?.content?.['application/json']?.examples ?? {}).some((e) => e.value.error === DATABASE_BUSY) ? r : undefined;
    };
    const answered: string[] = [];
    const problems: string[] = [];
    const spies = (['query', 'exec', 'transaction'] as const).map((m) => vi.spyOn(pglite, m).mockImplementation(refused as never));
    try {
      for (const r of publicRoutes()) {
        const g = given[`${r.method} ${r.url}`];
        const res = await t.app.inject({
          method: r.method as InjectOptions['method'], url: g?.url ?? r.url.replace(/:[A-Za-z0-9_]+/g, 'x0'), headers: g?.headers ?? credentialOf(r.url, owner), remoteAddress: randomIp(),
          ...(BODY_METHODS.includes(r.method) ? { payload: g?.payload ?? {} } : {}),
        });
        if (res.statusCode !== 503 || res.json().error !== DATABASE_BUSY) continue;
        const route = `${r.method} ${openApiPath(r.url)}`;
        answered.push(route);
        expect(res.headers['retry-after'], route).toBe(String(DATABASE_BUSY_RETRY_S));
        const declared = busyAnswer(r.method, openApiPath(r.url));
        if (!declared) problems.push(`${route}: answers 503 "${DATABASE_BUSY}", which the document does not list`);
        else if (!declared.headers?.['Retry-After']) problems.push(`${route}: its 503 does not name Retry-After`);
      }
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expect(answered.length).toBeGreaterThan(90);
    expect(problems).toEqual([]);
    // and no route declares it without answering it
    const declaredOnly = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).filter((m) => busyAnswer(m, p)).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((d) => !answered.includes(d));
    expect(declaredOnly).toEqual([]);
  });

  describe('recorded answers of real requests match their response schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const recorded: { route: string; res: LightMyRequestResponse }[] = [];
    const call = async (route: string, opts: InjectOptions) => {
      const res = await t.app.inject({ remoteAddress: randomIp(), ...opts });
      recorded.push({ route, res });
      return res;
    };

    it('records and checks', async () => {
      ajv.addSchema(closedDocument(doc), 'openapi');
      const k = keyHeader(acct.testKey);
      const tk = tokenHeader(acct.accessToken);
      const created = await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: k, payload: { order_id: `o-${uid()}`, amount_usd: '25', token: 'ETH', metadata: { a: 1 } } });
      const id = created.json().id;
      await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: k, payload: { amount_usd: '25' } });
      const open = await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: k, payload: { order_id: `o-${uid()}`, amount_usd: '30' } });
      await call('GET /v1/payments', { method: 'GET', url: '/v1/payments?limit=5', headers: k });
      await call('GET /v1/payments/{id}', { method: 'GET', url: `/v1/payments/${id}`, headers: k });
      await call('GET /v1/payments/{id}', { method: 'GET', url: '/v1/payments/pay_nope', headers: k });
      await call('GET /v1/payments', { method: 'GET', url: '/v1/payments' });
      await call('GET /v1/tokens', { method: 'GET', url: '/v1/tokens', headers: k });
      await call('GET /checkout/{checkoutToken}', { method: 'GET', url: `/checkout/${open.json().checkout_token}` });
      await call('POST /checkout/{checkoutToken}/token', { method: 'POST', url: `/checkout/${open.json().checkout_token}/token`, payload: { token: 'TRX' } });
      await call('POST /checkout/{checkoutToken}/token', { method: 'POST', url: `/checkout/${open.json().checkout_token}/token`, payload: { token: 'TRX' } });
      await call('POST /v1/payments/{id}/simulate', { method: 'POST', url: `/v1/payments/${id}/simulate`, headers: k, payload: { outcome: 'confirmed' } });
      await call('POST /v1/payments/{id}/simulate', { method: 'POST', url: `/v1/payments/${id}/simulate`, headers: k, payload: {} });
      await call('GET /tokens', { method: 'GET', url: '/tokens?mode=test' });
      await call('PUT /v1/webhook', { method: 'PUT', url: '/v1/webhook', headers: k, payload: { url: 'http://127.0.0.1:9/hook' } });
      await call('PUT /v1/webhook', { method: 'PUT', url: '/v1/webhook', headers: k, payload: {} });
      await call('GET /v1/webhook', { method: 'GET', url: '/v1/webhook', headers: k });
      await call('POST /v1/webhook/test', { method: 'POST', url: '/v1/webhook/test', headers: k });
      await call('GET /merchant/webhooks/deliveries', { method: 'GET', url: '/merchant/webhooks/deliveries?mode=test', headers: tk });
      await call('GET /merchant/me', { method: 'GET', url: '/merchant/me', headers: tk });
      await call('GET /merchant/me', { method: 'GET', url: '/merchant/me' });
      await call('POST /merchant/login', { method: 'POST', url: '/merchant/login', payload: { email: acct.email, password: acct.password } });
      await call('POST /merchant/login', { method: 'POST', url: '/merchant/login', payload: { email: acct.email, password: 'wrong-password' } });
      await call('POST /merchant/api-keys', { method: 'POST', url: '/merchant/api-keys?mode=test', headers: tk, payload: { label: 'ci', access: 'read' } });
      await call('POST /merchant/api-keys', { method: 'POST', url: '/merchant/api-keys?mode=test', headers: tk, payload: { access: 'admin' } });
      await call('GET /merchant/api-keys', { method: 'GET', url: '/merchant/api-keys?mode=test', headers: tk });
      await call('POST /merchant/stores', { method: 'POST', url: '/merchant/stores', headers: tk, payload: { name: 'Shop' } });
      await call('GET /merchant/stores', { method: 'GET', url: '/merchant/stores', headers: tk });
      await call('PATCH /merchant/settings', { method: 'PATCH', url: '/merchant/settings', headers: tk, payload: { underpaid_tolerance_bps: 100 } });
      await call('PATCH /merchant/settings', { method: 'PATCH', url: '/merchant/settings', headers: tk, payload: {} });
      await call('GET /merchant/tokens', { method: 'GET', url: '/merchant/tokens?mode=test', headers: tk });
      await call('GET /merchant/dashboard', { method: 'GET', url: '/merchant/dashboard?mode=test', headers: tk });
      await call('GET /merchant/payments', { method: 'GET', url: '/merchant/payments?mode=test', headers: tk });
      await call('GET /merchant/payments/{id}', { method: 'GET', url: `/merchant/payments/${id}`, headers: tk });
      await call('GET /merchant/payments/{id}/events', { method: 'GET', url: `/merchant/payments/${id}/events`, headers: tk });
      await call('GET /merchant/payments/{id}/trail', { method: 'GET', url: `/merchant/payments/${id}/trail`, headers: tk });
      await call('GET /merchant/balances', { method: 'GET', url: '/merchant/balances?mode=test', headers: tk });
      await call('GET /merchant/ledger', { method: 'GET', url: '/merchant/ledger?mode=test', headers: tk });
      await call('GET /merchant/settlements', { method: 'GET', url: '/merchant/settlements?mode=test', headers: tk });
      await call('GET /merchant/payout-addresses', { method: 'GET', url: '/merchant/payout-addresses?mode=test', headers: tk });
      await call('GET /merchant/users', { method: 'GET', url: '/merchant/users', headers: tk });
      await call('GET /merchant/audit', { method: 'GET', url: '/merchant/audit', headers: tk });
      await call('GET /merchant/audit', { method: 'GET', url: '/merchant/audit?from=yesterday', headers: tk });
      await call('GET /merchant/notifications', { method: 'GET', url: '/merchant/notifications', headers: tk });
      await call('GET /merchant/affiliate', { method: 'GET', url: '/merchant/affiliate', headers: tk });
      await call('POST /merchant/links', { method: 'POST', url: '/merchant/links?mode=test', headers: tk, payload: { name: 'Tee', amount_usd: '20' } });
      await call('GET /merchant/links', { method: 'GET', url: '/merchant/links?mode=test', headers: tk });
      await call('POST /merchant/customers', { method: 'POST', url: '/merchant/customers?mode=test', headers: tk, payload: { email: 'c@example.com' } });
      await call('GET /merchant/support/messages', { method: 'GET', url: '/merchant/support/messages', headers: tk });
      await call('POST /merchant/stores', { method: 'POST', url: '/merchant/stores', headers: { ...tk, 'idempotency-key': 'x'.repeat(256) }, payload: { name: 'Shop' } });
      // A route with no credential checks the key too (and never stores it).
      await call('POST /merchant/login', { method: 'POST', url: '/merchant/login', headers: { 'idempotency-key': 'x'.repeat(256) }, payload: { email: acct.email, password: acct.password } });
      // Error answers and fields the document once left out (each was answered by the service).
      await call('POST /merchant/auth/logout', { method: 'POST', url: '/merchant/auth/logout' });
      await call('POST /merchant/auth/refresh', { method: 'POST', url: '/merchant/auth/refresh', headers: { cookie: 'refresh_token=garbage' } });
      await call('POST /merchant/auth/logout-all', { method: 'POST', url: '/merchant/auth/logout-all', headers: { authorization: 'Bearer nope' } });
      await call('GET /v1/tokens', { method: 'GET', url: '/v1/tokens?amount_usd=abc', headers: k });
      for (const amount_usd of ['0', '1.234']) await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: k, payload: { order_id: `o-${uid()}`, amount_usd } });
      await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: k, payload: { order_id: `o-${uid()}`, amount_usd: '10', success_url: 'ftp://x' } });
      await call('POST /merchant/payments', { method: 'POST', url: '/merchant/payments?mode=test', headers: tk, payload: { order_id: `o-${uid()}`, amount_usd: '0' } });
      const choosing = (await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: k, payload: { order_id: `o-${uid()}`, amount_usd: '30' } })).json();
      await call('POST /checkout/{checkoutToken}/simulate', { method: 'POST', url: `/checkout/${choosing.checkout_token}/simulate`, payload: { outcome: 'confirmed' } });
      await call('POST /merchant/payments/{id}/simulate', { method: 'POST', url: `/merchant/payments/${choosing.id}/simulate`, headers: tk, payload: { outcome: 'confirmed' } });
      await call('GET /checkout/{token}/qr.svg', { method: 'GET', url: `/checkout/${choosing.checkout_token}/qr.svg` });
      await call('POST /merchant/invitations', { method: 'POST', url: '/merchant/invitations', headers: tk, payload: { email: 'nope', role: 'viewer' } });
      const invited = (await call('POST /merchant/invitations', { method: 'POST', url: '/merchant/invitations', headers: tk, payload: { email: `i-${uid()}@example.com`, role: 'viewer' } })).json();
      const inviteToken = new URL(invited.accept_url).searchParams.get('token') ?? String(invited.accept_url).split('/').pop();
      await call('POST /merchant/invitations/accept', { method: 'POST', url: '/merchant/invitations/accept', payload: { token: inviteToken, password: 'short' } });
      await call('PATCH /merchant/settings', { method: 'PATCH', url: '/merchant/settings', headers: tk, payload: { convert_into: 'nope' } });
      await call('PATCH /merchant/settings', { method: 'PATCH', url: '/merchant/settings', headers: tk, payload: { hide_below_minimum: 'x' } });
      await call('GET /merchant/notifications', { method: 'GET', url: '/merchant/notifications?category=nope', headers: tk });
      await call('POST /merchant/notifications/read', { method: 'POST', url: '/merchant/notifications/read', headers: tk, payload: {} });
      await call('GET /merchant/support/messages', { method: 'GET', url: '/merchant/support/messages?before=nope', headers: tk });
      // A support message edited to nothing or past its length is refused as a new one is.
      const written = (await call('POST /merchant/support/messages', { method: 'POST', url: '/merchant/support/messages', headers: tk, payload: { body: 'hello' } })).json();
      for (const body of ['  ', 'b'.repeat(MAX_BODY + 1)]) {
        await call('PATCH /merchant/support/messages/{id}', { method: 'PATCH', url: `/merchant/support/messages/${written.message.id}`, headers: tk, payload: { body } });
      }
      await call('GET /merchant/webhooks/deliveries', { method: 'GET', url: '/merchant/webhooks/deliveries?status=nope', headers: tk });
      await call('GET /merchant/links', { method: 'GET', url: '/merchant/links?active=maybe', headers: tk });
      await call('POST /merchant/links', { method: 'POST', url: '/merchant/links', headers: tk, payload: { name: 'Live tee', amount_usd: '20' } });
      const tiny = (await call('POST /merchant/links', { method: 'POST', url: '/merchant/links?mode=test', headers: tk, payload: { name: 'Tiny', amount_usd: '0.5', tokens: ['BTC'] } })).json();
      await call('POST /l/{slug}/payments', { method: 'POST', url: `/l/${String(tiny.link.url).split('/').pop()}/payments`, payload: {} });
      await call('POST /merchant/links', { method: 'POST', url: '/merchant/links?mode=test', headers: tk, payload: { name: 'Tee', amount_usd: 'abc' } });
      await call('GET /merchant/customers', { method: 'GET', url: `/merchant/customers?q=${'x'.repeat(201)}`, headers: tk });
      await call('POST /merchant/customers', { method: 'POST', url: '/merchant/customers?mode=test', headers: tk, payload: {} });
      const customer = (await call('POST /merchant/customers', { method: 'POST', url: '/merchant/customers?mode=test', headers: tk, payload: { email: `c-${uid()}@example.com` } })).json();
      await call('PATCH /merchant/customers/{id}', { method: 'PATCH', url: `/merchant/customers/${customer.customer.id}`, headers: tk, payload: {} });
      // Each refusal of the link and customer bodies, and of the payment body they share, is a message the document lists.
      const badLinks = [
        { name: 'x' }, { name: 'x', amount_usd: '5', description: 'd'.repeat(1001) }, { name: 'x', amount_usd: '5', tokens: 'ETH' },
        { name: 'x', amount_usd: '5', tokens: ['DOGE2'] }, { name: 'x', amount_usd: '5', success_url: 'ftp://x' }, { name: 'x', amount_usd: '5', cancel_url: 'nope' },
        { name: 'x', amount_usd: '5', description: 'a\u0000b' },
      ];
      for (const payload of badLinks) await call('POST /merchant/links', { method: 'POST', url: '/merchant/links?mode=test', headers: tk, payload });
      for (const payload of [{ name: '' }, { description: 'd'.repeat(1001) }, { description: 5 }]) {
        await call('PATCH /merchant/links/{id}', { method: 'PATCH', url: `/merchant/links/${tiny.link.id}`, headers: tk, payload });
      }
      const badCustomer = [{ name: 'n'.repeat(201) }, { metadata: 'x' }, { metadata: { a: 'x'.repeat(9000) } }];
      for (const extra of badCustomer) {
        await call('POST /merchant/customers', { method: 'POST', url: '/merchant/customers?mode=test', headers: tk, payload: { email: `c-${uid()}@example.com`, ...extra } });
        await call('PATCH /merchant/customers/{id}', { method: 'PATCH', url: `/merchant/customers/${customer.customer.id}`, headers: tk, payload: extra });
      }
      await call('POST /merchant/customers', { method: 'POST', url: '/merchant/customers?mode=test', headers: tk, payload: { email: 'nope' } });
      const badPayments = [
        { description: 'd'.repeat(1001) }, { metadata: { a: 'x'.repeat(9000) } }, { simulate: 'bogus' }, { price_amount: 'x', price_currency: 'EUR' },
        { price_currency: 'EURO' }, { price_amount: '5' }, { order_id: 'a\u0000b' },
      ];
      for (const extra of badPayments) await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: k, payload: { order_id: `o-${uid()}`, amount_usd: '10', ...extra } });
      await call('POST /merchant/payout-addresses', { method: 'POST', url: '/merchant/payout-addresses?mode=test', headers: tk, payload: { token: 'ETH', address: 'nope', password: acct.password } });
      await call('GET /merchant/payouts/quote', { method: 'GET', url: '/merchant/payouts/quote', headers: tk });
      await call('POST /merchant/payouts', { method: 'POST', url: '/merchant/payouts', headers: tk, payload: { address_id: 'pa_nope' } });
      await call('GET /merchant/affiliate/referrals', { method: 'GET', url: '/merchant/affiliate/referrals?status=nope', headers: tk });
      await call('GET /merchant/affiliate/payouts', { method: 'GET', url: '/merchant/affiliate/payouts?status=nope', headers: tk });
      await call('POST /merchant/affiliate/payouts', { method: 'POST', url: '/merchant/affiliate/payouts', headers: tk, payload: {} });
      await call('GET /merchant/audit', { method: 'GET', url: '/merchant/audit?to=nope', headers: tk });
      await call('GET /merchant/audit', { method: 'GET', url: `/merchant/audit?payment_id=${id}`, headers: tk });
      // A suspended account signs in and refreshes no more.
      const suspended = await signupAccount(t.app);
      const suspend = await t.app.inject({ method: 'PATCH', url: `/admin/merchants/${suspended.merchant.id}`, headers: { authorization: 'Bearer test-admin-token' }, payload: { status: 'suspended', note: 'test' } });
      expect(suspend.statusCode).toBe(200);
      await call('POST /merchant/login', { method: 'POST', url: '/merchant/login', payload: { email: suspended.email, password: suspended.password } });
      await call('POST /merchant/auth/refresh', { method: 'POST', url: '/merchant/auth/refresh', headers: { cookie: suspended.refreshCookie ?? '' } });
      // Referrals: a referred sign-up, and a referral payout (balance credited by the operator) canceled.
      const program = (await call('GET /merchant/affiliate', { method: 'GET', url: '/merchant/affiliate', headers: tk })).json();
      await signupAccount(t.app, { referral_code: program.code });
      await call('GET /merchant/affiliate/referrals', { method: 'GET', url: '/merchant/affiliate/referrals', headers: tk });
      await call('GET /merchant/affiliate/commissions', { method: 'GET', url: '/merchant/affiliate/commissions', headers: tk });
      const credited = await t.app.inject({ method: 'POST', url: '/admin/affiliate/adjustments', headers: { authorization: 'Bearer test-admin-token' }, payload: { merchant_id: acct.merchant.id, amount: '60', note: 'test' } });
      expect(credited.statusCode).toBe(201);
      const asked = (await call('POST /merchant/affiliate/payouts', { method: 'POST', url: '/merchant/affiliate/payouts', headers: tk, payload: { amount: '60', address: 'TLyqzVGLV1srkB7dToTAEqgDSfPtXRJZYH', password: acct.password } })).json();
      await call('POST /merchant/affiliate/payouts/{id}/cancel', { method: 'POST', url: `/merchant/affiliate/payouts/${asked.payout.id}/cancel`, headers: tk });
      await call('GET /merchant/affiliate/payouts/{id}', { method: 'GET', url: `/merchant/affiliate/payouts/${asked.payout.id}`, headers: tk });
      await call('GET /merchant/affiliate', { method: 'GET', url: '/merchant/affiliate', headers: tk });

      // Refusals added to the document later: a body's unpaired surrogate, a payout to an address
      // not active yet (a second live address of a coin waits 24 hours), a PATCH changing nothing.
      await call('POST /v1/payments', { method: 'POST', url: '/v1/payments', headers: { ...k, 'content-type': 'application/json' }, payload: `{"order_id":"o-${uid()}","amount_usd":"10","description":"a\\ud800b"}` });
      const eth = { token: 'ETH', password: acct.password };
      await call('POST /merchant/payout-addresses', { method: 'POST', url: '/merchant/payout-addresses', headers: tk, payload: { ...eth, address: '0x1111111111111111111111111111111111111111' } });
      const later = (await call('POST /merchant/payout-addresses', { method: 'POST', url: '/merchant/payout-addresses', headers: tk, payload: { ...eth, address: '0x2222222222222222222222222222222222222222' } })).json();
      await call('PATCH /merchant/payout-addresses/{id}', { method: 'PATCH', url: `/merchant/payout-addresses/${later.address.id}`, headers: tk, payload: { default: false } });
      const same = await call('PATCH /merchant/payout-addresses/{id}', { method: 'PATCH', url: `/merchant/payout-addresses/${later.address.id}`, headers: tk, payload: { label: later.address.label ?? '' } });
      expect(same.statusCode).toBe(200);
      await call('GET /merchant/payouts/quote', { method: 'GET', url: `/merchant/payouts/quote?address_id=${later.address.id}`, headers: tk });
      const early = await call('POST /merchant/payouts', { method: 'POST', url: '/merchant/payouts', headers: tk, payload: { address_id: later.address.id } });
      expect(early.statusCode).toBe(409);
      const tron = { token: 'USDT_TRC20', password: acct.password };
      await call('POST /merchant/payout-addresses', { method: 'POST', url: '/merchant/payout-addresses', headers: tk, payload: { ...tron, address: 'TLyqzVGLV1srkB7dToTAEqgDSfPtXRJZYH' } });
      const tronLater = (await call('POST /merchant/payout-addresses', { method: 'POST', url: '/merchant/payout-addresses', headers: tk, payload: { ...tron, address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' } })).json();
      await call('POST /merchant/affiliate/payouts', { method: 'POST', url: '/merchant/affiliate/payouts', headers: tk, payload: { address_id: later.address.id, password: acct.password } });
      const tronEarly = await call('POST /merchant/affiliate/payouts', { method: 'POST', url: '/merchant/affiliate/payouts', headers: tk, payload: { address_id: tronLater.address.id, password: acct.password } });
      expect(tronEarly.statusCode).toBe(409);

      expect(recorded.length).toBeGreaterThan(45);
      const problems: string[] = [];
      for (const { route, res } of recorded) problems.push(...answerProblems(ajv, route, res));
      expect(problems).toEqual([]);
    });
  });

  it('describes the main objects as real answers carry them: each one\'s required keys present, no key it does not name, every value of its type', async () => {
    // One of each object with its optional fields where they apply (a conversion, an adjustment's
    // note, a rejected payout's review_note), read back from the routes that answer it.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(closedDocument(doc), 'openapi');
    const owner = await signupAccount(t.app);
    const tk = tokenHeader(owner.accessToken);
    const req = async (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: object) => {
      const res = await t.app.inject({ method, url, headers, remoteAddress: randomIp(), ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 200)}`).toBeLessThan(300);
      return res.json();
    };
    const admin = { authorization: 'Bearer test-admin-token' };
    const seen: Record<string, unknown[]> = {};
    const add = (component: string, ...objects: unknown[]) => (seen[component] ??= []).push(...objects);

    const k = keyHeader(owner.testKey);
    const created = await req('POST', '/v1/payments', k, { order_id: `o-${uid()}`, amount_usd: '25', token: 'ETH', description: 'tee', metadata: { a: 1 } });
    const open = await req('POST', '/v1/payments', k, { order_id: `o-${uid()}`, amount_usd: '30' });
    add('Payment', created, open, await req('GET', `/v1/payments/${created.id}`, k), await req('GET', `/merchant/payments/${open.id}`, tk));
    add('Payment', ...(await req('GET', '/v1/payments', k)).payments);

    // A custodial settlement of a live BTC deposit (bought for USDT: a conversion), and a test adjustment with a note.
    const [settled] = await t.services.settlement.settle(opened.db, input(payment(owner.merchant.id, { token: 'BTC', rate_locked: '60000', settlement: 'custodial', livemode: true }), [{ amount: 1_000_000n, usd: '600' }]));
    await req('POST', '/admin/ledger/adjustments', admin, { merchant_id: owner.merchant.id, livemode: false, token: 'BTC', amount: '0.001', note: 'goodwill' });
    add('Settlement', (await req('GET', `/merchant/settlements/${settled.id}`, tk)).settlement, ...(await req('GET', '/merchant/settlements', tk)).settlements);
    add('LedgerEntry', ...(await req('GET', '/merchant/ledger?mode=test', tk)).entries, ...(await req('GET', '/merchant/ledger', tk)).entries);

    // Live USDT (Tron) credited, an address for it, two payouts: one requested, one rejected.
    await req('POST', '/admin/ledger/adjustments', admin, { merchant_id: owner.merchant.id, livemode: true, token: 'USDT_TRC20', amount: '100', note: 'opening' });
    const address = (await req('POST', '/merchant/payout-addresses', tk, { token: 'USDT_TRC20', address: ADDR.TRON, label: 'main', password: owner.password })).address;
    add('PayoutAddress', address, ...(await req('GET', '/merchant/payout-addresses', tk)).addresses);
    const asked = (await req('POST', '/merchant/payouts', tk, { address_id: address.id, amount: '20' })).payout;
    const other = (await req('POST', '/merchant/payouts', tk, { address_id: address.id, amount: '30' })).payout;
    add('Payout', asked, (await req('POST', `/admin/payouts/${other.id}/reject`, admin, { note: 'address under review' })).payout, ...(await req('GET', '/merchant/payouts', tk)).payouts);
    add('Balance', ...(await req('GET', '/merchant/balances?mode=test', tk)).balances, ...(await req('GET', '/merchant/balances', tk)).balances);

    // A webhook URL and a test event to it: the webhook and its delivery.
    add('Webhook', (await req('PUT', '/v1/webhook', k, { url: 'http://127.0.0.1:9/hook' })).webhook, (await req('GET', '/v1/webhook', k)).webhook);
    await req('POST', '/v1/webhook/test', k);
    add('Delivery', ...(await req('GET', '/merchant/webhooks/deliveries?mode=test', tk)).deliveries);
    add('AuditEntry', ...(await req('GET', '/merchant/audit', tk)).entries);

    // a component with no properties would take any object: each checked one names its fields
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties?: object }> } }).components.schemas;
    expect(Object.keys(seen).filter((c) => !schemas[c]?.properties), 'components described by no field').toEqual([]);
    const problems: string[] = [];
    for (const [component, objects] of Object.entries(seen)) {
      const validate = ajv.getSchema(`openapi#/components/schemas/${component}`)!;
      for (const o of objects) if (!validate(o)) problems.push(`${component} ${JSON.stringify(o).slice(0, 160)}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
    const count = (c: string) => seen[c]?.length ?? 0;
    for (const c of ['Payment', 'Settlement', 'Payout', 'PayoutAddress', 'Delivery', 'Webhook', 'Balance', 'LedgerEntry', 'AuditEntry']) expect(count(c), c).toBeGreaterThan(0);
    // the optional parts that apply here were there to check
    expect((seen.Settlement[0] as { conversion?: object }).conversion).toBeDefined();
    expect(seen.LedgerEntry.some((e) => (e as { note?: string }).note === 'goodwill')).toBe(true);
    expect(seen.Payout.some((p) => (p as { review_note?: string }).review_note === 'address under review')).toBe(true);
  });

  it('serves the reference page and its script from this service, with a policy that allows nothing else', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    const srcs = [...page.body.matchAll(/src="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs).toEqual(['/docs/scalar.js']);
    expect(page.body).toContain('data-url="/openapi.json"');
    const script = await t.app.inject({ method: 'GET', url: '/docs/scalar.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    expect(script.rawPayload.length).toBeGreaterThan(100_000);
  });
});
