// The hosted checkout page (spec 1 "Surfaces"): `{CHECKOUT_URL}/pay/<checkout_token>`, plain
// HTML/CSS/JS from web/checkout/ (no build step), and the deposit address as an SVG QR code.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { notFound } from '../platform/errors.ts';
import type { CheckoutSource } from './checkout-namespace.ts';
import { PAYMENT_NOT_FOUND } from './events.ts';

export const PAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/checkout');
export const NO_ADDRESS_YET = 'choose the payment\'s coin first';
const ASSETS: Record<string, string> = { 'checkout.js': 'text/javascript; charset=utf-8', 'checkout.css': 'text/css; charset=utf-8' };
const BASE_PLACEHOLDER = '{{API_BASE}}';

interface Asset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
}

function asset(body: string | Buffer, type: string): Asset {
  const buf = Buffer.from(body);
  return { body: buf, gzipped: zlib.gzipSync(buf, { level: 9 }), type };
}

function send(req: FastifyRequest, reply: FastifyReply, a: Asset, cache: string): FastifyReply {
  reply.header('content-type', a.type).header('cache-control', cache).header('vary', 'accept-encoding');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(a.gzipped);
  return reply.send(a.body);
}

/**
 * The page. `apiBase` is PUBLIC_URL when the page is served under another host (CHECKOUT_URL), else
 * '' (same origin). The checkout token sits in the URL, so no Referer leaves the page.
 */
export function registerCheckoutPage(app: FastifyInstance, apiBase: string): void {
  const html = asset(fs.readFileSync(path.join(PAGE_DIR, 'index.html'), 'utf8').replaceAll(BASE_PLACEHOLDER, apiBase), 'text/html; charset=utf-8');
  const files = Object.fromEntries(Object.entries(ASSETS).map(([name, type]) => [name, asset(fs.readFileSync(path.join(PAGE_DIR, name)), type)]));
  const connect = apiBase ? `'self' ${apiBase} ${apiBase.replace(/^http/, 'ws')}` : "'self'";
  const csp = [
    "default-src 'none'", `script-src 'self' ${apiBase}`.trim(), "style-src 'self'", `img-src 'self' data: ${apiBase}`.trim(),
    `connect-src ${connect}`, "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; ');

  app.get('/pay/:token', async (req, reply) => {
    reply.header('content-security-policy', csp).header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
    return send(req, reply, html, 'no-store');
  });
  app.get('/pay/assets/:file', async (req, reply) => {
    const file = files[(req.params as { file: string }).file];
    if (!file) throw notFound();
    reply.header('x-content-type-options', 'nosniff');
    return send(req, reply, file, 'public, max-age=300');
  });
}

/** GET /checkout/{token}/qr.svg: the QR code of `qr_payload` (the deposit address alone). */
export function registerQrRoute(app: FastifyInstance, source: () => CheckoutSource): void {
  app.get('/checkout/:token/qr.svg', async (req, reply) => {
    const payment = await source().payerViewByToken((req.params as { token: string }).token);
    if (!payment) throw notFound(PAYMENT_NOT_FOUND);
    const payload = payment.qr_payload;
    if (typeof payload !== 'string' || payload === '') throw notFound(NO_ADDRESS_YET);
    const svg = await QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=3600').header('access-control-allow-origin', '*');
    return svg;
  });
}
