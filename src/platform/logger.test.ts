import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createLogger, requestChildLogger } from './logger.ts';

function capture() {
  const lines: string[] = [];
  const log = createLogger('info', { write: (s: string) => { lines.push(s); } });
  // The time differs between two calls; everything else must be byte for byte the same.
  const take = (): string[] => lines.splice(0).map((l) => l.replace(/,"time":\d+/, ''));
  return { log, take };
}

const IDS = ['req_0123456789abcdef', 'a"b\\c', '!~{}[]*.password', 'x'.repeat(200), "it's"];
const LOGGED = { user: { password: 'p' }, req: { headers: { authorization: 'Bearer sk_live_x', 'x-api-key': 'k' } }, body: { secret: 's', new_password: 'n' } };

describe('requestChildLogger', () => {
  it.each(IDS)('writes what pino own child writes, secrets redacted (%s)', (id) => {
    const { log, take } = capture();
    const ours = requestChildLogger(log, { request_id: id }, {});
    const pinos = log.child({ request_id: id }, {});
    pinos.info(LOGGED, 'm');
    ours.info(LOGGED, 'm');
    pinos.child({ k: 1 }).warn({ token: { secret: 'z' } });
    ours.child({ k: 1 }).warn({ token: { secret: 'z' } });
    const [a, b, c, d] = take();
    expect(b).toBe(a);
    expect(d).toBe(c);
    for (const line of [b, d]) expect(line).not.toMatch(/sk_live_x|:"k"|:"p"|:"s"|:"n"|:"z"/);
    expect(JSON.parse(b!).request_id).toBe(id);
  });

  it('leaves options, non-string values and several bindings to pino', () => {
    const { log, take } = capture();
    requestChildLogger(log, { request_id: 'r' }, { level: 'warn' }).info('hidden');
    requestChildLogger(log, { request_id: 7 }, {}).info('n');
    requestChildLogger(log, { a: 'x', user: { password: 'p' } }, {}).info('two');
    const lines = take().map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0].request_id).toBe(7);
    expect(lines[1]).toMatchObject({ a: 'x', user: { password: '[redacted]' } });
    expect(pino.symbols.chindingsSym).toBeTypeOf('symbol');
  });
});

describe('redaction of the SMTP settings', () => {
  it('hides the SMTP password and SMTP_URL wherever they are logged (the config, nodemailer options, the environment)', () => {
    const { log, take } = capture();
    log.info({ config: { mail: { host: 'mail.example', user: 'gw', pass: 'hunter22' }, smtpUrl: 'smtp://gw:hunter22@mail.example' } }, 'a');
    log.info({ transport: { auth: { user: 'gw', pass: 'hunter22' } }, env: { SMTP_URL: 'smtp://gw:hunter22@mail.example' } }, 'b');
    const lines = take();
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toContain('hunter22');
    expect(JSON.parse(lines[0]).config.mail.host).toBe('mail.example');
  });
});
