// The web pages: each is a folder of web/ with an index.html, built by Vite (vite.config.ts, one
// config for all; `npm run build:web` builds them all) into web/dist/<page>/, its files served
// under `<base>assets/`. Pure data, read by the Vite config, the build and the server alike.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DIST_DIR = path.join(WEB_DIR, 'dist');

export interface WebPage {
  /** URL prefix the page's files are served under (their links are absolute). */
  base: string;
}

export const WEB_PAGES = {
  // The hosted checkout (spec 1 "Surfaces"): /pay/<checkout_token>, files under /pay/assets/.
  checkout: { base: '/pay/' },
  // The merchant dashboard: `{PUBLIC_URL}/` and its pages (web/dashboard/lib/paths.ts), files under /assets/.
  dashboard: { base: '/' },
} as const satisfies Record<string, WebPage>;

export type WebPageName = keyof typeof WEB_PAGES;

export const isWebPage = (name: string): name is WebPageName => Object.hasOwn(WEB_PAGES, name);
export const pageSourceDir = (page: WebPageName): string => path.join(WEB_DIR, page);
export const pageDistDir = (page: WebPageName): string => path.join(DIST_DIR, page);
/** Where Vite puts the hashed files of a page (served as `<base>assets/<file>`). */
export const ASSETS_DIR = 'assets';
