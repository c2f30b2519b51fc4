// The server ends a dashboard socket whose access token ran out (`auth:error` `token_expired`). A
// tab in the background can get there before its own refresh (browsers hold back hidden tabs'
// timers), while its refresh cookie is still good: the tab exchanges the cookie and connects again
// rather than signing the member out (README "The merchant dashboard", Session).
import { describe, it } from 'vitest';
import { signupAccount } from '../harness/accounts.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard socket expiry test');

/** The service's clock, moved ahead by hand: the socket's token then runs out seconds after it connects. */
let aheadMs = 0;
const clock = { now: () => new Date(Date.now() + aheadMs) };

describe.skipIf(!hasChromium)('dashboard socket whose token ran out, in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium({ clock });

  /** A signed-in tab whose socket connects only once the clock is moved: its token then has 3 s left. */
  async function signedInTabAboutToExpire() {
    aheadMs = 0;
    const owner = await signupAccount(env.t.app);
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    await page.route('**/socket.io/socket.io.min.js', async (route) => { await released; await route.continue(); });
    const refreshes: number[] = [];
    page.on('response', (r) => { if (r.url().endsWith('/merchant/auth/refresh')) refreshes.push(r.status()); });
    let sockets = 0;
    page.on('websocket', (ws) => { if (ws.url().includes('/socket.io/')) sockets += 1; });
    await page.goto(`${env.t.url}/`);
    await signInOnPage(page, owner);
    await page.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    const loadRefreshes = refreshes.length; // the page load's own (no cookie yet: refused)
    return {
      page, context,
      refreshesSinceSignIn: () => refreshes.slice(loadRefreshes),
      sockets: () => sockets,
      connect: async () => {
        aheadMs = 15 * 60_000 - 3_000;
        release();
        await page.locator('.live-dot.up').waitFor(WAIT);
      },
    };
  }

  it('token_expired with a good refresh cookie: the cookie is exchanged, the socket connects again, the member stays signed in', async ({ expect }) => {
    const tab = await signedInTabAboutToExpire();
    await tab.connect();
    // the server ends the first socket ~3 s later; the tab exchanges its cookie and connects again
    await expect.poll(tab.refreshesSinceSignIn, WAIT).toEqual([200]);
    await expect.poll(tab.sockets, WAIT).toBe(2);
    await tab.page.locator('.live-dot.up').waitFor(WAIT);
    expect(await tab.page.getByText('Your session expired. Sign in again.').count()).toBe(0);
    expect(await tab.page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true);
    await tab.context.close();
  });

  it('token_expired and the cookie refused: signed out, saying the session expired', async ({ expect }) => {
    const tab = await signedInTabAboutToExpire();
    await tab.connect();
    await tab.context.clearCookies();
    await tab.page.getByText('Your session expired. Sign in again.').waitFor(WAIT);
    expect(tab.refreshesSinceSignIn()).toEqual([401]);
    expect(tab.sockets()).toBe(1);
    await tab.context.close();
  });
});
