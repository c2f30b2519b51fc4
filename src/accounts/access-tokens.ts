// Dashboard access tokens: HS256 JWTs of 15 minutes, naming the user, account and session.
import { jwtVerify, SignJWT } from 'jose';

export const ACCESS_TOKEN_TTL_S = 15 * 60;
const ISSUER = 'gateway';
const KIND = 'access';

export interface AccessClaims {
  userId: string;
  merchantId: string;
  sessionId: string;
  role: string;
}

export class AccessTokens {
  readonly #key: Uint8Array;
  constructor(secret: string) {
    this.#key = new TextEncoder().encode(secret);
  }

  async issue(c: AccessClaims, now: Date): Promise<{ token: string; expiresAt: Date }> {
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + ACCESS_TOKEN_TTL_S;
    const token = await new SignJWT({ mid: c.merchantId, sid: c.sessionId, role: c.role, kind: KIND })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.userId)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.#key);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** The claims of a valid, unexpired access token; null for anything else (also other token kinds). */
  async verify(token: string, now: Date): Promise<(AccessClaims & { expiresAt: Date }) | null> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'], issuer: ISSUER, currentDate: now,
      });
      if (payload.kind !== KIND || typeof payload.sub !== 'string' || typeof payload.mid !== 'string' || typeof payload.sid !== 'string') return null;
      return {
        userId: payload.sub, merchantId: payload.mid, sessionId: payload.sid, role: String(payload.role),
        expiresAt: new Date((payload.exp ?? 0) * 1000),
      };
    } catch {
      return null;
    }
  }
}
