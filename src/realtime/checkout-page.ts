// The hosted checkout page (spec 1 "Surfaces"): `{CHECKOUT_URL}/pay/<checkout_token>`, built by
// Vite from web/checkout/ into web/dist/checkout/ (web/build.ts), and the deposit address as an
// SVG QR code. The HTML comes in the payer's language (Accept-Language), with that language's
// words (a file of their own) preloaded; the page's files are hashed, so they are cached for good.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { AppError, notFound } from '../platform/errors.ts';
import { paramOf } from '../platform/http/index.ts';
import type { Logger } from '../platform/logger.ts';
import { ASSETS_DIR, WEB_PAGES, pageDistDir } from '../../web/pages.ts';
import { LANGUAGES, pickLanguage, type Language } from '../../web/checkout/lib/languages.ts';
import { CATALOGUES } from '../../web/checkout/i18n/all.ts';
import type { CheckoutSource } from './checkout-namespace.ts';
import { PAYMENT_NOT_FOUND } from './events.ts';
import { htmlAttr, htmlText } from '../platform/http/html.ts';

export const CHECKOUT_DIST = pageDistDir('checkout');
export const NO_ADDRESS_YET = 'choose the payment\'s coin first';
export const PAGE_NOT_BUILT = 'the checkout page is not built: run npm run build:web';
/** What a checkout token looks like; anything else is not preloaded (it never reaches a header). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,100}$/;
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

export interface Asset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
}

export function asset(body: string | Buffer, type: string): Asset {
  const buf = Buffer.from(body);
  return { body: buf, gzipped: zlib.gzipSync(buf, { level: 9 }), type };
}

export function send(req: FastifyRequest, reply: FastifyReply, a: Asset, cache: string, vary = 'accept-encoding'): FastifyReply {
  reply.header('content-type', a.type).header('cache-control', cache).header('vary', vary);
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(a.gzipped);
  return reply.send(a.body);
}


interface Manifest {
  [source: string]: { file: string };
}

export interface PageOptions {
  /** PUBLIC_URL when the page is served under another host (CHECKOUT_URL), else '' (same origin). */
  apiBase: string;
  /** TOKEN_CONTRACTS: the page's wallet links use them instead of the mainnet contracts. */
  tokenContracts: Record<string, string>;
  /**
   * The chain id of each EVM chain's node, null until it answered (the page's evm-chain-ids: its
   * EIP-681 links name that chain, none while null, mainnet's for a chain left out). Read per request:
   * the nodes answer after the page is loaded.
   */
  evmChainIds?: () => Readonly<Record<string, number | null>>;
  log: Logger;
  /** The built page's folder (tests point it elsewhere). */
  dist?: string;
}

export interface BuiltPage {
  /** The HTML in each language for these EVM chain ids (built again only when they change). */
  html: (evmChainIds: Readonly<Record<string, number | null>>) => Record<Language, Asset>;
  files: Map<string, Asset>;
}

/** The built page: its HTML in each language, and its files by name. Null when not built. */
export function loadBuiltPage(opts: Pick<PageOptions, 'apiBase' | 'tokenContracts'>, dist = CHECKOUT_DIST): BuiltPage | null {
  const htmlFile = path.join(dist, 'index.html');
  if (!fs.existsSync(htmlFile)) return null;
  const template = fs.readFileSync(htmlFile, 'utf8');
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8')) as Manifest;
  const base = WEB_PAGES.checkout.base;
  // Split where the chain ids go: what the other values hold is never read as a placeholder.
  const pages = {} as Record<Language, string[]>;
  for (const lang of LANGUAGES) {
    const words = manifest[`i18n/${lang}.ts`];
    const preload = words ? `<link rel="modulepreload" crossorigin href="${base}${words.file}">` : '';
    pages[lang] = template.split('{{EVM_CHAIN_IDS}}').map((part) => part
      .replaceAll('{{LANG}}', lang)
      .replaceAll('{{API_BASE}}', htmlAttr(opts.apiBase))
      .replaceAll('{{TOKEN_CONTRACTS}}', htmlAttr(JSON.stringify(opts.tokenContracts)))
      .replaceAll('{{TITLE}}', htmlText(CATALOGUES[lang].pageTitleNoName))
      .replaceAll('{{LOADING}}', htmlText(CATALOGUES[lang].loading))
      .replace('<!--preload-->', preload));
  }
  let last: { ids: string; html: Record<Language, Asset> } | null = null;
  const html = (evmChainIds: Readonly<Record<string, number | null>>): Record<Language, Asset> => {
    const ids = JSON.stringify(evmChainIds);
    if (last?.ids !== ids) {
      const built = {} as Record<Language, Asset>;
      for (const lang of LANGUAGES) built[lang] = asset(pages[lang].join(htmlAttr(ids)), 'text/html; charset=utf-8');
      last = { ids, html: built };
    }
    return last.html;
  };
  const files = new Map<string, Asset>();
  const dir = path.join(dist, ASSETS_DIR);
  for (const name of fs.readdirSync(dir)) {
    const type = ASSET_TYPES[path.extname(name)];
    if (type) files.set(name, asset(fs.readFileSync(path.join(dir, name)), type));
  }
  return { html, files };
}

export function registerCheckoutPage(app: FastifyInstance, opts: PageOptions): void {
  const dist = opts.dist ?? CHECKOUT_DIST;
  const built = loadBuiltPage(opts, dist);
  if (!built) opts.log.warn(`${PAGE_NOT_BUILT} (${dist} is missing)`);
  const { apiBase } = opts;
  const connect = apiBase ? `'self' ${apiBase} ${apiBase.replace(/^http/, 'ws')}` : "'self'";
  const csp = [
    "default-src 'none'", `script-src 'self' ${apiBase}`.trim(), "style-src 'self'", `img-src 'self' data: ${apiBase}`.trim(),
    `connect-src ${connect}`, "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; ');

  // Any token, of any length: the router leaves a parameter over its maxParamLength unmatched,
  // which would answer the JSON 404 where every other bad token gets the page saying the link is
  // not valid. A path with more segments is no payment link.
  app.get('/pay/*', async (req, reply) => {
    const token = paramOf(req, '*');
    if (token === '' || token.includes('/')) throw notFound();
    if (!built) throw new AppError(503, PAGE_NOT_BUILT);
    reply.header('content-security-policy', csp).header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
    // The payment is fetched while the script loads, not after (the page's fetch() takes this response).
    if (TOKEN_SHAPE.test(token)) reply.header('link', `<${apiBase}/checkout/${token}>; rel=preload; as=fetch; crossorigin`);
    const lang = pickLanguage(req.headers['accept-language']);
    return send(req, reply, built.html(opts.evmChainIds?.() ?? {})[lang], 'no-store', 'accept-encoding, accept-language');
  });
  serveBuiltFiles(app, '/pay/assets/:file', built?.files);
}

/** GET `url` (ending in `:file`): the files of a built page, served for good (404 for any other name, or before a build). */
export function serveBuiltFiles(app: FastifyInstance, url: string, files: ReadonlyMap<string, Asset> | undefined): void {
  app.get(url, async (req, reply) => {
    const file = files?.get(paramOf(req, 'file'));
    if (!file) throw notFound();
    reply.header('x-content-type-options', 'nosniff');
    // Names carry a hash of their content: a new build brings new names.
    return send(req, reply, file, 'public, max-age=31536000, immutable');
  });
}

/** GET /checkout/{token}/qr.svg: the QR code of `qr_payload` (the deposit address alone). */
export function registerQrRoute(app: FastifyInstance, source: () => CheckoutSource): void {
  app.get('/checkout/:token/qr.svg', async (req, reply) => {
    const payment = await source().payerViewByToken(paramOf(req, 'token'));
    if (!payment) throw notFound(PAYMENT_NOT_FOUND);
    const payload = payment.qr_payload;
    if (typeof payload !== 'string' || payload === '') throw notFound(NO_ADDRESS_YET);
    const svg = await QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=3600').header('access-control-allow-origin', '*');
    return svg;
  });
}
