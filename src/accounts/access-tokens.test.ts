// Dashboard access tokens by their rules: 15 minutes by the injected clock, HS256 of this secret,
// this issuer and the access kind only. Tokens other than the gateway's are made here with jose.
import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { ACCESS_TOKEN_TTL_S, AccessTokens } from './access-tokens.ts';

const SECRET = 'test-secret-of-enough-length-for-hs256-0123456789';
const NOW = new Date('2026-03-10T10:00:00.000Z');
const CLAIMS = { userId: 'usr_1', merchantId: 'mer_1', sessionId: 'ses_1', role: 'owner' };
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

/** A token as the gateway's, with one thing changed. */
function forged(over: { kind?: string; issuer?: string; secret?: string } = {}): Promise<string> {
  const iat = Math.floor(NOW.getTime() / 1000);
  return new SignJWT({ mid: 'mer_1', sid: 'ses_1', role: 'owner', kind: over.kind ?? 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject('usr_1').setIssuer(over.issuer ?? 'gateway')
    .setIssuedAt(iat).setExpirationTime(iat + ACCESS_TOKEN_TTL_S).sign(new TextEncoder().encode(over.secret ?? SECRET));
}

describe('AccessTokens', () => {
  const tokens = new AccessTokens(SECRET);

  it('gives back the claims of its own token, expiring 15 minutes after issue', async () => {
    const { token, expiresAt } = await tokens.issue(CLAIMS, NOW);
    expect(expiresAt).toEqual(at(15 * 60));
    expect(await tokens.verify(token, NOW)).toEqual({ ...CLAIMS, expiresAt: at(15 * 60) });
    // a token made the same way by hand is as good: the check above is not the issuer's echo
    expect(await tokens.verify(await forged(), NOW)).toEqual({ ...CLAIMS, expiresAt: at(15 * 60) });
  });

  it('refuses its own token once 15 minutes have passed by the clock it is given', async () => {
    const { token } = await tokens.issue(CLAIMS, NOW);
    expect(await tokens.verify(token, at(15 * 60 - 1))).not.toBeNull();
    expect(await tokens.verify(token, at(15 * 60))).toBeNull();
    expect(await tokens.verify(token, at(24 * 3600))).toBeNull();
  });

  it('refuses a token of another kind, another issuer or another secret, and garbage', async () => {
    expect(await tokens.verify(await forged({ kind: 'refresh' }), NOW)).toBeNull();
    expect(await tokens.verify(await forged({ issuer: 'someone-else' }), NOW)).toBeNull();
    expect(await tokens.verify(await forged({ secret: `${SECRET}-other` }), NOW)).toBeNull();
    const [header, payload] = (await forged()).split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    expect(await tokens.verify(none, NOW)).toBeNull();
    expect(await tokens.verify(`${header}.${payload}.`, NOW)).toBeNull();
    expect(await tokens.verify('expired.token.here', NOW)).toBeNull();
  });
});
