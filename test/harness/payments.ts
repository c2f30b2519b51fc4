// Payments fixtures for integration tests: create payments through /v1 and read them back.
import type { FastifyInstance, InjectOptions } from 'fastify';
import { keyHeader, randomIp, uid } from './accounts.ts';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies of any shape

export async function createPayment(app: FastifyInstance, key: string, body: Json = {}): Promise<Json> {
  const res = await app.inject({ method: 'POST', url: '/v1/payments', headers: keyHeader(key), payload: { order_id: `o-${uid()}`, amount_usd: '25', token: 'ETH', ...body } });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function getPayment(app: FastifyInstance, key: string, id: string): Promise<Json> {
  const res = await app.inject({ method: 'GET', url: `/v1/payments/${id}`, headers: keyHeader(key) });
  if (res.statusCode !== 200) throw new Error(`read failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** An inject from its own client address, so per-IP limits never collide between tests. */
export const fromIp = (opts: InjectOptions): InjectOptions => ({ remoteAddress: randomIp(), ...opts });
