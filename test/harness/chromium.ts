// Debian's Chromium for the browser tests, started as this machine needs it: as root (no sandbox),
// headless without a GPU, and without the background connections a closed network refuses.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Whether Chromium is installed; when it is not, says once which tests are skipped. */
export function chromiumPresent(tests: string): boolean {
  const present = fs.existsSync(CHROMIUM);
  if (!present) console.log(`${tests} skipped: ${CHROMIUM} is absent (apt-get install chromium)`);
  return present;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
