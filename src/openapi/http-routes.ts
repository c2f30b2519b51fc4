// GET /openapi.json (the document) and GET /docs (Scalar's API reference rendered from it). The
// reference page loads its script from this service (the bundle in node_modules) and its
// configuration turns off every remote feature; the page's Content-Security-Policy lets it reach
// nothing but this origin.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from './document.ts';

const SCALAR_CONFIG = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  externalUrls: { dashboardUrl: '', registryUrl: '', proxyUrl: '', apiBaseUrl: '' },
};

const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;');

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>API reference</title></head>
<body>
<script id="api-reference" data-url="/openapi.json" data-configuration='${escapeAttr(JSON.stringify(SCALAR_CONFIG))}'></script>
<script src="/docs/scalar.js"></script>
</body>
</html>
`;

function scalarBundlePath(): string {
  const entry = fileURLToPath(import.meta.resolve('@scalar/api-reference'));
  return path.join(path.dirname(entry), 'browser', 'standalone.js');
}

export function registerOpenApiRoutes(app: FastifyInstance, opts: { serverUrl: string; version: string }): void {
  let document: string | null = null;
  let bundle: Buffer | null = null;
  app.get('/openapi.json', async (_req, reply) => {
    // Built on first use: every route's description is known by then.
    document ??= JSON.stringify(buildOpenApiDocument(opts));
    return reply.header('content-type', 'application/json; charset=utf-8').header('access-control-allow-origin', '*').send(document);
  });
  app.get('/docs', async (_req, reply) =>
    reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CSP).header('cache-control', 'no-cache').send(PAGE));
  app.get('/docs/scalar.js', async (_req, reply) => {
    bundle ??= await fs.promises.readFile(scalarBundlePath());
    return reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(bundle);
  });
}
