// The refresh cookie: httpOnly, only sent to /merchant/auth, Secure when served over https.
import type { FastifyReply } from 'fastify';
import { REFRESH_COOKIE, REFRESH_COOKIE_PATH, REFRESH_TTL_MS } from '../sessions.ts';

export function setRefreshCookie(reply: FastifyReply, token: string, secure: boolean): void {
  reply.setCookie(REFRESH_COOKIE, token, {
    path: REFRESH_COOKIE_PATH, httpOnly: true, sameSite: 'strict', secure, maxAge: Math.floor(REFRESH_TTL_MS / 1000),
  });
}

export function clearRefreshCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(REFRESH_COOKIE, { path: REFRESH_COOKIE_PATH, httpOnly: true, sameSite: 'strict', secure });
}
