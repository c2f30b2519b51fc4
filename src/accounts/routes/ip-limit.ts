// Per-IP limits of spec part 8 (sign-in, sign-up, coin choice, checkout simulate).
import type { FastifyRequest } from 'fastify';
import { tooManyRequests } from '../../platform/errors.ts';
import type { RateLimiter } from '../../platform/rate-limit.ts';

export async function limitByIp(limiter: RateLimiter, bucket: string, req: FastifyRequest, perSecond: number, nowMs: number): Promise<void> {
  if (!(await limiter.take(`${bucket}:${req.ip}`, perSecond, 1000, nowMs))) throw tooManyRequests();
}
