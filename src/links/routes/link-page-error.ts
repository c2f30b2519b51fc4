// The hosted link page's refusals as a page (GET {checkout_base}/l/{slug} is opened by a payer in a
// browser, where `{"error": ...}` would read as raw JSON): the API's message on a card in the
// checkout page's look, with the refusal's status. Clients that ask for anything but HTML keep the
// JSON answer every other route gives.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.ts';
import { htmlText } from '../../platform/http/html.ts';

/** A browser navigating asks for text/html first; fetch() and API clients do not. */
export const wantsHtml = (req: FastifyRequest): boolean => /\btext\/html\b/i.test(String(req.headers.accept ?? ''));

// The checkout page's colours, card and status line (web/checkout/checkout.css), light and dark.
const STYLE = [
  ':root{color-scheme:light dark;--bg:#f3f4f6;--surface:#fff;--fg:#16181d;--line:#c9ced6;--bad-bg:#fce8e6;--bad-fg:#9b0c0c}',
  '@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--surface:#1a1d23;--fg:#eceef1;--line:#3a404b;--bad-bg:#3d1515;--bad-fg:#f8b4ae}}',
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}',
  '.page{max-width:960px;margin:0 auto;padding:12px}',
  '.card{background:var(--surface);border:1px solid var(--line);border-radius:10px;padding:16px}',
  'h1{font-size:1.35rem;line-height:1.25;margin:0 0 4px}',
  '.status{font-weight:600;padding:10px 12px;border-radius:8px;background:var(--bad-bg);color:var(--bad-fg);overflow-wrap:anywhere}',
].join('');

/** The page for a refusal: its status, Retry-After when it has one, the message as text. */
export function sendErrorPage(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.retryAfterS !== undefined) reply.header('retry-after', String(err.retryAfterS));
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<meta name="robots" content="noindex"><title>Payment</title><style>${STYLE}</style></head>`
    + `<body><main class="page"><section class="card"><h1>Payment</h1><p class="status" role="alert">${htmlText(err.message)}</p></section></main></body></html>`;
  return reply.code(err.status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    .header('x-content-type-options', 'nosniff')
    .send(body);
}
