// The merchant dashboard (README "The merchant dashboard"): one HTML page at `{PUBLIC_URL}/` and on
// each of the app's own paths (web/dashboard/lib/paths.ts; any other path keeps its 404), built
// by Vite from web/dashboard/ into web/dist/dashboard/, its hashed files under /assets/. Same
// origin as the API and sockets, so the policy allows nothing but 'self'.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { ASSETS_DIR, pageDistDir } from '../../web/pages.ts';
import { APP_PATHS } from '../../web/dashboard/lib/paths.ts';
import { asset, send, serveBuiltFiles, type Asset } from './checkout-page.ts';

export const DASHBOARD_DIST = pageDistDir('dashboard');
export const DASHBOARD_NOT_BUILT = 'the dashboard is not built: run npm run build:web';
const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

export const DASHBOARD_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "connect-src 'self'",
  "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

function loadBuilt(dist: string): { html: Asset; files: Map<string, Asset> } | null {
  const htmlFile = path.join(dist, 'index.html');
  if (!fs.existsSync(htmlFile)) return null;
  const files = new Map<string, Asset>();
  const dir = path.join(dist, ASSETS_DIR);
  for (const name of fs.readdirSync(dir)) {
    const type = ASSET_TYPES[path.extname(name)];
    if (type) files.set(name, asset(fs.readFileSync(path.join(dir, name)), type));
  }
  return { html: asset(fs.readFileSync(htmlFile), 'text/html; charset=utf-8'), files };
}

export function registerDashboardPage(app: FastifyInstance, opts: { log: Logger; dist?: string }): void {
  const dist = opts.dist ?? DASHBOARD_DIST;
  const built = loadBuilt(dist);
  if (!built) opts.log.warn(`${DASHBOARD_NOT_BUILT} (${dist} is missing)`);
  for (const url of APP_PATHS) {
    app.get(url, async (req, reply) => {
      if (!built) throw new AppError(503, DASHBOARD_NOT_BUILT);
      reply.header('content-security-policy', DASHBOARD_CSP).header('referrer-policy', 'same-origin')
        .header('x-content-type-options', 'nosniff').header('x-frame-options', 'DENY');
      return send(req, reply, built.html, 'no-store');
    });
  }
  serveBuiltFiles(app, '/assets/:file', built?.files);
}
