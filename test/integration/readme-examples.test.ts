// The README's examples as a reader copies them: each is read out of README.md, type-checked with
// the project's compiler settings and run. The webhook receiver ("Check the signature before
// anything else") runs as its own process and gets real deliveries from the gateway: one signed
// with its secret (acknowledged, the event read), one signed with a secret rolled since (refused).
// The SDK's example (sdk/README.md) runs as its own process against a listening service: it creates
// a payment, and run again with the same idempotency key gets the same one, replayed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { openTestDatabase } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { keyHeader, randomIp, signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { VERIFY_MISMATCH } from '../../src/webhooks/verify.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The ```ts block that follows `after` in `file` (README.md, or sdk/README.md), as written there. */
function readmeBlock(after: string, file = 'README.md'): string {
  const readme = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const at = readme.indexOf(after);
  if (at < 0) throw new Error(`${file} no longer says: ${after}`);
  const m = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!m) throw new Error(`no ts block in ${file} after: ${after}`);
  return m[1];
}

/**
 * Writes an example where it can run: its imports of the repository (`./src/…`, as from the
 * repository's root) pointed at this checkout, as an ES module.
 */
function placeExample(code: string, dir: string, name: string): string {
  const file = path.join(dir, `${name}.mts`);
  fs.writeFileSync(file, code.replace(/from '\.\/(src|sdk)\//g, `from '${ROOT}/$1/`));
  return file;
}

/** The compiler's complaints about a file, under the project's own settings (tsconfig.json). */
function typeErrors(file: string): string[] {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([file], { ...options, typeRoots: [path.join(ROOT, 'node_modules/@types')] });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The service on PGlite with a merchant signed up, for a describe block (closed after it). */
function serviceWithAccount(): { readonly t: TestApp; readonly acct: Account } {
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  let t: TestApp | undefined;
  let acct: Account | undefined;
  beforeAll(async () => {
    opened = await openTestDatabase('pglite');
    t = await startTestApp(opened.db);
    acct = await signupAccount(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await opened?.dispose();
  });
  return { get t() { return t!; }, get acct() { return acct!; } };
}

describe('README examples', () => {
  let dir: string;
  beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-readme-')); });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('the webhook receiver', () => {
    const code = readmeBlock('**Check the signature before anything else.**');
    let t: TestApp;
    let acct: Account;
    let receiver: ChildProcess | undefined;
    let output = '';
    const service = serviceWithAccount();
    beforeAll(() => { ({ t, acct } = service); });
    afterAll(() => { receiver?.kill(); });

    it('type-checks as written', () => {
      expect(typeErrors(placeExample(code, dir, 'receiver-check'))).toEqual([]);
    }, 60_000);

    it('acknowledges a delivery signed with its secret and reads the event; refuses one signed with another', async () => {
      const inject = async (method: 'GET' | 'PUT' | 'POST', url: string, headers: Record<string, string>, payload?: object) => {
        const res = await t.app.inject({ method, url, headers, remoteAddress: randomIp(), ...(payload ? { payload } : {}) });
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
        return res.json();
      };
      const port = await freePort();
      const hook = `http://127.0.0.1:${port}/hook`;
      const { webhook } = await inject('PUT', '/v1/webhook', keyHeader(acct.testKey), { url: hook });
      expect(webhook.secret).toMatch(/^[0-9a-f]{64}$/);

      receiver = spawn(process.execPath, [placeExample(code, dir, 'receiver')], {
        env: { ...process.env, WEBHOOK_SECRET: webhook.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      receiver.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
      receiver.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
      await until('the receiver to listen', async () => (await fetch(hook, { method: 'POST', body: '{}' })).status);

      const deliver = async () => {
        await inject('POST', '/v1/webhook/test', keyHeader(acct.testKey));
        await t.platform.outbox.drainNow();
        await t.services.webhooks.worker.runDue();
        const { deliveries } = await inject('GET', '/merchant/webhooks/deliveries?mode=test&limit=1', tokenHeader(acct.accessToken));
        return deliveries[0] as { id: string; event_id: string; event_type: string; status: string; last_status_code?: number; url: string };
      };

      const signed = await deliver();
      expect(signed).toMatchObject({ event_type: 'ping', status: 'delivered', last_status_code: 200, url: hook });
      await until('the receiver to log the event', async () => (output.includes(`received ping ${signed.event_id}`) ? true : undefined), 5000);

      // The secret rolled: the gateway signs with the new one, the receiver still holds the old.
      await inject('POST', '/merchant/webhook/roll-secret?mode=test', tokenHeader(acct.accessToken));
      const refused = await deliver();
      expect(refused.id).not.toBe(signed.id);
      expect(refused).toMatchObject({ event_type: 'ping', last_status_code: 400 });
      expect(refused.status).not.toBe('delivered');
      const one = await inject('GET', `/merchant/webhooks/deliveries/${refused.id}`, tokenHeader(acct.accessToken));
      expect(JSON.stringify(one)).toContain(VERIFY_MISMATCH);
      expect(output).not.toContain(`received ping ${refused.event_id}`);
    }, 60_000);
  });
  describe('the SDK client (sdk/README.md)', () => {
    const code = readmeBlock('A typed client of the gateway', 'sdk/README.md');
    const EXAMPLE_URL = 'https://pay.example.com';
    let t: TestApp;
    let acct: Account;
    const service = serviceWithAccount();
    beforeAll(() => { ({ t, acct } = service); });

    it('type-checks as written', () => {
      expect(typeErrors(placeExample(code, dir, 'sdk-check'))).toEqual([]);
    }, 60_000);

    it('creates a payment with its key; run again, gets the same one replayed; an error is a value', async () => {
      expect(code).toContain(`'${EXAMPLE_URL}'`);
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const run = async (name: string, source: string, apiKey: string) => {
        const file = placeExample(source.replace(`'${EXAMPLE_URL}'`, `'${address}'`), dir, name);
        const child = spawn(process.execPath, [file], { env: { ...process.env, GATEWAY_KEY: apiKey }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
        child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        return { code, out, err };
      };
      const first = await run('sdk-first', code, acct.testKey);
      expect(first, first.err).toMatchObject({ code: 0, err: '' });
      const checkout = /^(\S+)\s*$/.exec(first.out)?.[1];
      expect(checkout, first.out).toMatch(/^https?:\/\/\S+\/pay\//);
      const { payments } = (await t.app.inject({ method: 'GET', url: '/v1/payments', headers: keyHeader(acct.testKey), remoteAddress: randomIp() })).json();
      expect(payments).toHaveLength(1);
      expect(payments[0], JSON.stringify(payments[0])).toMatchObject({ order_id: 'order-1042', token: 'ETH', checkout_url: checkout });

      const again = await run('sdk-again', code, acct.testKey);
      expect(again).toMatchObject({ code: 0, err: '', out: `${checkout} (replayed)\n` });

      // A key the gateway does not know: the error branch, with the gateway's message and request id.
      const refused = await run('sdk-refused', code, 'f'.repeat(64));
      expect(refused.code).toBe(0);
      expect(refused.out).toBe('');
      expect(refused.err).toMatch(/^401 invalid api key req_[0-9a-z]{26}\n$/);
    }, 60_000);
  });
});
