// The hosted page as HTTP serves it (no browser): the payer's language from Accept-Language with
// its words preloaded, TOKEN_CONTRACTS and the EVM nodes' chain ids for the wallet links, hashed
// files cached for good, a clear 503 when the page was never built, and the page weight under 40 kB gzipped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { openTestDatabase } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import { installErrorMapper } from '../../src/platform/http/index.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { CHECKOUT_DIST, PAGE_NOT_BUILT, registerCheckoutPage } from '../../src/realtime/checkout-page.ts';
import { anvilOrSkip, startAnvil, type AnvilNode } from '../harness/anvil.ts';

const LOCAL_USDT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const manifest = () => JSON.parse(fs.readFileSync(path.join(CHECKOUT_DIST, '.vite/manifest.json'), 'utf8')) as Record<string, { file: string; css?: string[] }>;

describe('hosted checkout page over HTTP', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: TestApp;
  let owner: Account;
  let token: string;

  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    t = await startTestApp(opened.db, { env: { TOKEN_CONTRACTS: `USDT_ERC20=${LOCAL_USDT}` } });
    owner = await signupAccount(t.app);
    token = (await createPayment(t.app, owner.testKey)).checkout_token;
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });

  const page = (lang?: string) => t.app.inject({ method: 'GET', url: `/pay/${token}`, headers: lang ? { 'accept-language': lang } : {} });

  it('serves the deposit address as a QR code; 404 payment not found, or choose the payment\'s coin first', async () => {
    const qr = await t.app.inject({ method: 'GET', url: `/checkout/${token}/qr.svg` });
    expect([qr.statusCode, qr.headers['content-type']]).toEqual([200, 'image/svg+xml']);
    expect(qr.body).toMatch(/^<svg /);
    const unknown = await t.app.inject({ method: 'GET', url: '/checkout/no-such-token/qr.svg' });
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: 'payment not found' }]);
    const choosing = (await createPayment(t.app, owner.testKey, { token: undefined, amount_usd: '30' })).checkout_token;
    const noCoin = await t.app.inject({ method: 'GET', url: `/checkout/${choosing}/qr.svg` });
    expect([noCoin.statusCode, noCoin.json()]).toEqual([404, { error: 'choose the payment\'s coin first' }]);
  });

  it('speaks the payer\'s language and preloads its words', async () => {
    const es = await page('es-ES,es;q=0.9,en;q=0.8');
    expect(es.statusCode).toBe(200);
    expect(es.body).toContain('<html lang="es">');
    expect(es.body).toContain('<title>Pago</title>');
    expect(es.body).toContain('Cargando el pago…');
    expect(es.body).toContain(`<link rel="modulepreload" crossorigin href="/pay/${manifest()['i18n/es.ts'].file}">`);
    expect(String(es.headers.vary)).toContain('accept-language');
    expect(es.headers['content-security-policy']).toContain("script-src 'self'");
    expect(es.headers['cache-control']).toBe('no-store');

    const en = await page('fr-FR');
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain(`<link rel="modulepreload" crossorigin href="/pay/${manifest()['i18n/en.ts'].file}">`);
    expect((await page('zh-CN')).body).toContain('<html lang="zh">');
  });

  it('answers a link whose token is too long as any other bad token: the page, which says the link is not valid', async () => {
    const short = await t.app.inject({ method: 'GET', url: '/pay/no-such-token' });
    for (const bad of ['x'.repeat(101), 'y'.repeat(500)]) {
      const long = await t.app.inject({ method: 'GET', url: `/pay/${bad}` });
      expect([long.statusCode, long.headers['content-type'], long.headers['cache-control']], `${bad.length} characters`)
        .toEqual([short.statusCode, short.headers['content-type'], short.headers['cache-control']]);
      expect(long.body).toBe(short.body);
    }
    expect(short.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/pay/a/b' })).statusCode).toBe(404);
  });

  it('hands TOKEN_CONTRACTS to the page (escaped for the attribute)', async () => {
    const html = (await page()).body;
    expect(html).toContain(`<meta name="token-contracts" content="{&quot;USDT_ERC20&quot;:&quot;${LOCAL_USDT}&quot;}">`);
    expect(html).toContain('<meta name="api-base" content="">');
    // no EVM node: no chain id to say (the page names mainnet; no live payment is taken there anyway)
    expect(html).toContain('<meta name="evm-chain-ids" content="{}">');
  });

  it('serves the hashed files for good; nothing else of the build', async () => {
    const file = manifest()['i18n/ru.ts'].file.replace(/^assets\//, '');
    const res = await t.app.inject({ method: 'GET', url: `/pay/assets/${file}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const other of ['index.html', '..%2Findex.html', 'manifest.json', 'nope.js']) {
      expect((await t.app.inject({ method: 'GET', url: `/pay/assets/${other}` })).statusCode, other).toBe(404);
    }
  });

  it('weighs under 40 kB gzipped: HTML, script, styles, the socket client and one language', async () => {
    const m = manifest();
    const urls = [`/pay/${token}`, `/pay/${m['index.html'].file}`, `/pay/${m['index.html'].css![0]}`, `/pay/${m['i18n/ru.ts'].file}`, '/socket.io/socket.io.min.js'];
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const sizes: Record<string, number> = {};
    for (const url of urls) {
      const res = await fetch(`${base}${url}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status, url).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      // fetch decodes; what crossed the wire is the gzipped body when the server compressed.
      sizes[url.replace(token, '<token>')] = res.headers.get('content-encoding') === 'gzip' ? zlib.gzipSync(body, { level: 9 }).length : body.length;
    }
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    console.log(`checkout page weight (gzip): ${JSON.stringify(sizes)} total ${total} bytes`);
    expect(total).toBeLessThan(40_000);
  });

  it('answers 503 with what to do when the page was never built', async () => {
    const app = Fastify();
    installErrorMapper(app);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-no-page-'));
    registerCheckoutPage(app, { apiBase: '', tokenContracts: {}, log: createLogger('silent'), dist: empty });
    const res = await app.inject({ method: 'GET', url: '/pay/ct_x' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: PAGE_NOT_BUILT });
    await app.close();
    fs.rmSync(empty, { recursive: true, force: true });
  });
});

// A staging gateway whose EVM nodes are a test network: the page's wallet links must name that
// network's chain id, never mainnet's 1 or 56 (a wallet would pay on mainnet to an address nothing watches).
describe.runIf(anvilOrSkip())('hosted checkout page: the chain ids of the EVM nodes', () => {
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  let t: TestApp;
  let eth: AnvilNode;
  let bsc: AnvilNode;

  beforeAll(async () => {
    [eth, bsc] = await Promise.all([startAnvil({ chainId: 31337 }), startAnvil({ chainId: 97 })]);
    // BNB Smart Chain's node is down at start: it answers later, on the same port
    await bsc.stop();
    opened = await openTestDatabase('pglite');
    t = await startTestApp(opened.db, { env: { ETHEREUM_RPC_URL: eth.url, BSC_RPC_URL: bsc.url, CHAIN_POLL_MS: '100' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
    await Promise.all([eth?.close(), bsc?.close()]);
  });

  const chainIds = async (): Promise<unknown> => {
    const html = (await t.app.inject({ method: 'GET', url: '/pay/ct_anything', headers: { 'accept-language': 'de' } })).body;
    const m = /<meta name="evm-chain-ids" content="([^"]*)">/.exec(html);
    return m ? JSON.parse(m[1].replaceAll('&quot;', '"')) : 'no evm-chain-ids meta tag';
  };

  it('null until a node said its chain id (no link rather than mainnet), then what it said; one that was down is asked again', async () => {
    expect(await chainIds()).toEqual({ ethereum: null, bsc: null });
    t.services.sending.evmChainIds.start();
    await t.services.sending.evmChainIds.learn();
    expect(await chainIds()).toEqual({ ethereum: 31337, bsc: null });
    await bsc.start();
    await expect.poll(chainIds, { timeout: 10_000, interval: 50 }).toEqual({ ethereum: 31337, bsc: 97 });
    // every language's page says the same
    const fr = (await t.app.inject({ method: 'GET', url: '/pay/ct_anything', headers: { 'accept-language': 'fr' } })).body;
    expect(fr).toContain('<meta name="evm-chain-ids" content="{&quot;ethereum&quot;:31337,&quot;bsc&quot;:97}">');
  }, 30_000);
});
