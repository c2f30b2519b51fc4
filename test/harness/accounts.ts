// Account fixtures through the public sign-up route, for every room's integration tests.
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export const PASSWORD = 'correct-horse-9';
export const uid = (): string => crypto.randomBytes(5).toString('hex');

/** A distinct client address per call, so per-IP limits of one test never hit another. */
export const randomIp = (): string => `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${1 + crypto.randomInt(254)}`;

export interface Account {
  merchant: Record<string, unknown> & { id: string };
  user: Record<string, unknown> & { id: string };
  email: string;
  password: string;
  accessToken: string;
  refreshCookie: string | null;
  testKey: string;
  liveKey: string;
  testKeyId: string;
  liveKeyId: string;
}

export async function signupAccount(app: FastifyInstance, body: Record<string, unknown> = {}): Promise<Account> {
  const email = (body.email as string) ?? `owner-${uid()}@example.com`;
  const res = await app.inject({
    method: 'POST', url: '/merchant/signup', remoteAddress: randomIp(),
    payload: { merchant_name: `Shop ${uid()}`, email, password: PASSWORD, ...body },
  });
  if (res.statusCode !== 201) throw new Error(`signup failed: ${res.statusCode} ${res.body}`);
  const b = res.json();
  const test = b.api_keys.find((k: { api_key: { livemode: boolean } }) => !k.api_key.livemode);
  const live = b.api_keys.find((k: { api_key: { livemode: boolean } }) => k.api_key.livemode);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('refresh_token='));
  return {
    merchant: b.merchant, user: b.user, email, password: PASSWORD, accessToken: b.access_token,
    refreshCookie: setCookie ? setCookie.split(';')[0] : null,
    testKey: test.secret, liveKey: live.secret, testKeyId: test.api_key.id, liveKeyId: live.api_key.id,
  };
}

export const keyHeader = (key: string) => ({ authorization: `Bearer ${key}` });
export const tokenHeader = (token: string) => ({ authorization: `Bearer ${token}` });

/** The `name=value` of a Set-Cookie header of a response, or null. */
export function cookieOf(res: { headers: Record<string, unknown> }, name = 'refresh_token'): string | null {
  const all = ([] as string[]).concat((res.headers['set-cookie'] as string | string[] | undefined) ?? []);
  const c = all.find((x) => x.startsWith(`${name}=`));
  return c ? c.split(';')[0] : null;
}

export interface SignedIn {
  accessToken: string;
  refreshCookie: string;
  role: string;
}

export async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<SignedIn> {
  const res = await app.inject({ method: 'POST', url: '/merchant/login', remoteAddress: randomIp(), payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const b = res.json();
  return { accessToken: b.access_token, refreshCookie: cookieOf(res)!, role: b.role };
}

export interface Member extends SignedIn {
  id: string;
  email: string;
  password: string;
}

/** Adds a team member of `role` through the owner's token and signs them in. */
export async function addMember(app: FastifyInstance, ownerToken: string, role: string): Promise<Member> {
  const email = `${role}-${uid()}@example.com`;
  // a fresh address each time: adding members is limited per address like sign-up
  const res = await app.inject({ method: 'POST', url: '/merchant/users', remoteAddress: randomIp(), headers: tokenHeader(ownerToken), payload: { email, password: PASSWORD, role } });
  if (res.statusCode !== 201) throw new Error(`add member failed: ${res.statusCode} ${res.body}`);
  return { id: res.json().user.id, email, password: PASSWORD, ...(await signIn(app, email)) };
}
