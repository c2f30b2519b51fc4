// Password hashes at OWASP's scrypt cost (N=2^17, r=8, p=1) by default; a hash made at the cost
// before is still accepted and made again at the current cost at the next successful sign-in (its
// parameters are stored with it). The other tests run at the old cost (PASSWORD_SCRYPT_N=16384).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { describeEachDb } from '../harness/databases.ts';
import { startTestApp, type TestApp } from '../harness/app.ts';
import { randomIp, signupAccount } from '../harness/accounts.ts';
import { users } from '../../src/accounts/schema.ts';
import { hashPassword, LEGACY_SCRYPT, OWASP_SCRYPT } from '../../src/accounts/passwords.ts';
import { loadConfig } from '../../src/config.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describeEachDb('password hashing cost', (h) => {
  let t: TestApp;
  // the production default, not the tests' lower cost
  beforeAll(async () => { t = await startTestApp(h.db(), { env: { PASSWORD_SCRYPT_N: String(2 ** 17) } }); });
  afterAll(async () => { await t.close(); });

  it('defaults to OWASP\'s scrypt cost', () => {
    expect(OWASP_SCRYPT).toEqual({ N: 131_072, r: 8, p: 1 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-cost-'));
    expect(loadConfig({ DATA_DIR: dir }).passwordScryptN).toBe(131_072);
    expect(() => loadConfig({ DATA_DIR: dir, PASSWORD_SCRYPT_N: '100000' })).toThrow('PASSWORD_SCRYPT_N must be a power of two, got 100000');
  });

  it('hashes at that cost, and upgrades a hash of the old cost at the next successful sign-in only', async () => {
    const a = await signupAccount(t.app);
    const hashOf = async () => (await h.db().orm.select({ hash: users.passwordHash }).from(users).where(eq(users.id, a.user.id)))[0].hash;
    expect(await hashOf()).toMatch(/^scrypt\$131072\$8\$1\$/);
    await h.db().orm.update(users).set({ passwordHash: await hashPassword(a.password, LEGACY_SCRYPT) }).where(eq(users.id, a.user.id));
    const login = (password: string) => t.app.inject({ method: 'POST', url: '/merchant/login', remoteAddress: randomIp(), payload: { email: a.email, password } });
    // a wrong password upgrades nothing
    expect((await login('not-the-password')).statusCode).toBe(401);
    expect(await hashOf()).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect((await login(a.password)).statusCode).toBe(200);
    const upgraded = await hashOf();
    expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$/);
    // the upgraded hash signs in, and is not made again
    expect((await login(a.password)).statusCode).toBe(200);
    expect(await hashOf()).toBe(upgraded);
  });
});
