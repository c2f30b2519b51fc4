import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { credentialShape } from './credential-kind.ts';

const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('k'.repeat(32)));

describe('credentialShape', () => {
  it('tells access tokens, other credentials and garbage apart', async () => {
    expect(credentialShape(await sign({ kind: 'access', sub: 'u' }))).toBe('access_token');
    expect(credentialShape(await sign({ sub: 'u' }))).toBe('access_token');
    expect(credentialShape(await sign({ kind: 'refresh' }))).toBe('other_kind');
    expect(credentialShape('ab'.repeat(32))).toBe('other_kind');
    expect(credentialShape('hello')).toBe('garbage');
    expect(credentialShape('a.b.c')).toBe('garbage');
  });
});
