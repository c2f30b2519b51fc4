// One Vite config for every web page (web/pages.ts): `vite build --mode <page>` builds one;
// `npm run build:web` builds them all. Preact's JSX through Vite's own transform (no Babel).
import { defineConfig } from 'vite';
import { ASSETS_DIR, WEB_PAGES, isWebPage, pageDistDir, pageSourceDir } from './web/pages.ts';

export default defineConfig(({ mode }) => {
  if (!isWebPage(mode)) throw new Error(`unknown web page "${mode}": one of ${Object.keys(WEB_PAGES).join(', ')}`);
  return {
    root: pageSourceDir(mode),
    base: WEB_PAGES[mode].base,
    publicDir: false,
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: pageDistDir(mode),
      emptyOutDir: true,
      assetsDir: ASSETS_DIR,
      // Every browser the pages support has modulepreload; the polyfill would only add bytes.
      modulePreload: { polyfill: false },
      target: 'es2022',
      manifest: true,
      reportCompressedSize: false,
    },
  };
});
