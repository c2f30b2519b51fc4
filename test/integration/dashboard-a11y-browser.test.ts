// Accessibility of the dashboard in Debian's Chromium (issue 18, "usable by a person"), on every page
// an owner may open, with data on it:
// - keyboard: each page is reached from the navigation by Shift+Tab and Enter alone; Tab then visits
//   every visible control of the page, each showing a visible focus ring (an outline or a shadow);
//   nothing that acts like a button is left out of the tab order;
// - contrast: every visible text against the background it is drawn on, both computed in the page
//   from getComputedStyle (backgrounds blended up the ancestors, opacity applied), at least 4.5:1
//   (3:1 for large text), in the light and the dark scheme;
// - axe-core's WCAG 2 A/AA rules, with no violation.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { signupAccount, tokenHeader, type Account } from '../harness/accounts.ts';
import { createPayment } from '../harness/payments.ts';
import type { SocketApp } from './realtime-support.ts';
import { PAGES, mayOpen, type PageName } from '../../web/dashboard/lib/paths.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium } from '../harness/dashboard-chromium.ts';

const WAIT = { timeout: 30_000 };

/**
 * Seen in full runs (not alone): a fresh page's form not there after 30 s. Call before the page
 * loads; the returned wait, on a timeout, says what the page showed and which requests were
 * still unanswered.
 */
function explainTimeouts(page: Page): (shown: Locator) => Promise<void> {
  const pending = new Set<string>();
  page.on('request', (r) => pending.add(`${r.method()} ${r.url()}`));
  page.on('requestfinished', (r) => pending.delete(`${r.method()} ${r.url()}`));
  page.on('requestfailed', (r) => pending.delete(`${r.method()} ${r.url()}`));
  return (shown) => shown.waitFor(WAIT).catch(async (e: Error) => {
    const body = (await page.innerText('body').catch(() => '(unreadable)')).slice(0, 200);
    throw new Error(`${e.message}\nthe page showed: ${body}\nunanswered: ${[...pending].join(', ')}`);
  });
}
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const hasChromium = chromiumPresent('dashboard accessibility tests');

type RGBA = [number, number, number, number];
interface A11yHelpers {
  parse(c: string): RGBA | null;
  over(top: RGBA, under: RGBA): RGBA;
  ratio(a: RGBA, b: RGBA): number;
  background(el: Element): RGBA | null;
  opacity(el: Element): number;
}

/** Colour helpers, put on `window.a11y` (run in the browser): WCAG relative luminance and contrast ratio. */
function installHelpers(): void {
  const parse = (c: string): RGBA | null => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p[3] ?? 1];
  };
  const over = (top: RGBA, under: RGBA): RGBA => {
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    return [0, 1, 2].map((i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a).concat(a) as RGBA;
  };
  const lum = (c: RGBA) => {
    const [r, g, b] = c.slice(0, 3).map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a: RGBA, b: RGBA) => { const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m); return (x + 0.05) / (y + 0.05); };
  /** The colour under an element: its own background and its ancestors', blended; null over an image. */
  const background = (el: Element): RGBA | null => {
    const layers: RGBA[] = [];
    for (let e: Element | null = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.backgroundImage !== 'none') return null;
      const c = parse(cs.backgroundColor);
      if (c && c[3] > 0) layers.push(c);
      if (c && c[3] === 1) break;
    }
    let out: RGBA = parse(getComputedStyle(document.documentElement).colorScheme.includes('dark') && matchMedia('(prefers-color-scheme: dark)').matches ? 'rgb(0,0,0)' : 'rgb(255,255,255)')!;
    for (const l of layers.reverse()) out = over(l, out);
    return out;
  };
  const opacity = (el: Element) => { let o = 1; for (let e: Element | null = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  (window as unknown as { a11y: A11yHelpers }).a11y = { parse, over, ratio, background, opacity };
}

/** What the page reports about its texts whose contrast is too low (run in the browser, after installHelpers). */
function lowContrast(): string[] {
  const { parse, over, ratio, background, opacity } = (window as unknown as { a11y: A11yHelpers }).a11y;
  const seen = new Set<Element>();
  const bad: string[] = [];
  const check = (el: Element, text: string) => {
    if (seen.has(el)) return;
    seen.add(el);
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1 || getComputedStyle(el).visibility === 'hidden') return; // not shown (or for screen readers only)
    if (el.closest(':disabled, [aria-disabled=true]')) return; // inactive controls are exempt (WCAG 1.4.3)
    const cs = getComputedStyle(el);
    const bg = background(el);
    const fg = parse(cs.color);
    if (!bg || !fg) return;
    const shown = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
    const got = ratio(shown, bg);
    if (got < (large ? 3 : 4.5)) bad.push(`${got.toFixed(2)}:1 "${text.trim().slice(0, 40)}" (${el.tagName.toLowerCase()}.${el.className}) ${cs.color} on rgb(${bg.slice(0, 3).map(Math.round).join(',')})`);
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent?.trim() && n.parentElement) check(n.parentElement, n.textContent);
  for (const el of Array.from(document.querySelectorAll('input:not([type=checkbox]):not([type=radio]), select, textarea'))) check(el, (el as HTMLInputElement).value || el.tagName);
  return bad;
}

describe.skipIf(!hasChromium)('dashboard accessibility in Chromium', { timeout: 240_000 }, () => {
  const env = dashboardInChromium();
  let t: SocketApp;
  let owner: Account;
  let browser: Browser;
  let paymentId: string;

  beforeAll(async () => {
    ({ t, browser } = env);
    owner = await signupAccount(t.app, { merchant_name: 'Accessible Shop' });
    const h = { headers: tokenHeader(owner.accessToken) };
    // Something on every page: payments, a link, a customer, a message, a payout address.
    paymentId = (await createPayment(t.app, owner.testKey, { token: 'ETH', amount_usd: '30', customer_email: 'buyer@example.com' })).id;
    await createPayment(t.app, owner.testKey, { token: 'TRX', amount_usd: '12', simulate: 'confirmed' });
    await t.app.inject({ method: 'POST', url: '/merchant/links?mode=test', ...h, payload: { name: 'Coffee', amount_usd: '4.50' } });
    await t.app.inject({ method: 'POST', url: '/merchant/customers?mode=test', ...h, payload: { email: 'ada@example.com', name: 'Ada' } });
    await t.app.inject({ method: 'POST', url: '/merchant/support/messages', ...h, payload: { body: 'Hello, support' } });
  }, 120_000);

  async function signedIn(scheme: 'light' | 'dark'): Promise<{ page: Page; errors: string[] }> {
    // axe is injected as an inline script: the page's CSP (self only) would refuse it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme: scheme, bypassCSP: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const shown = explainTimeouts(page);
    await page.goto(`${t.url}/signin`);
    await shown(page.getByLabel('Email'));
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    return { page, errors };
  }

  // The heading must start with the title as a whole word: "Payment" must not be met by the
  // "Payments" heading of the page still shown while a payment's page is on its way.
  const titled = (title: string) => new RegExp(`^${title}(\\s|$)`);
  const loaded = (page: Page, title: string) => page.locator('main h1').filter({ hasText: titled(title) }).waitFor(WAIT)
    .then(() => page.waitForFunction(() => !document.querySelector('main .loading, main [role=status].loading'), null, WAIT));

  /** Axe's WCAG 2 A and AA violations of the page, one line each. */
  async function axe(page: Page): Promise<string[]> {
    if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
    const found = await page.evaluate(async () => {
      const w = window as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } };
      const r = await w.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(', ')}`);
    });
    return found;
  }

  /**
   * Tab from the start of `scope` (main, or the whole page from its top) until focus leaves it or
   * comes round again: every control met, whether its focus ring shows (an outline of 2 px or more,
   * or a shadow) with 3:1 against what is around it, and the visible controls never reached.
   */
  async function tabThrough(page: Page, scope: 'main' | 'body'): Promise<{ reached: number; unseen: string[]; missed: string[] }> {
    await page.evaluate(installHelpers);
    await page.evaluate((sc) => {
      document.querySelectorAll('[data-tabbed]').forEach((e) => e.removeAttribute('data-tabbed'));
      document.querySelector('[data-last]')?.removeAttribute('data-last');
      if (sc === 'main') (document.querySelector('main') as HTMLElement).focus();
      else {
        // The next Tab starts from the top of the page: focus a mark placed before everything.
        const mark = document.createElement('span');
        mark.tabIndex = -1;
        mark.id = 'tab-start';
        document.body.prepend(mark);
        mark.focus();
      }
    }, scope);
    const unseen: string[] = [];
    let reached = 0;
    for (let i = 0; i < 400; i++) {
      await page.keyboard.press('Tab');
      const step = await page.evaluate((sc) => {
        const { parse, ratio, background } = (window as unknown as { a11y: A11yHelpers }).a11y;
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body || !el.closest(sc)) return { inside: false, visible: true, name: '' };
        // A date field takes a Tab per part (day, month, year): the same element again, moving on.
        if (el.hasAttribute('data-tabbed')) return { inside: el.hasAttribute('data-last'), visible: true, name: '', again: true };
        document.querySelector('[data-last]')?.removeAttribute('data-last');
        el.setAttribute('data-tabbed', '');
        el.setAttribute('data-last', '');
        const cs = getComputedStyle(el);
        const name = `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}"`;
        if (cs.boxShadow !== 'none') return { inside: true, visible: true, name };
        const ring = parse(cs.outlineColor);
        const around = background(el.parentElement ?? el);
        const shows = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2 && ring !== null && around !== null && ratio(ring, around) >= 3;
        return { inside: true, visible: shows, name: shows ? name : `${name} ring ${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor} ${ring && around ? ratio(ring, around).toFixed(2) : '?'}:1` };
      }, scope);
      if (i === 0) await page.evaluate(() => document.getElementById('tab-start')?.remove());
      if (!step.inside) break;
      if ('again' in step) continue;
      reached++;
      if (!step.visible) unseen.push(step.name);
    }
    // Every visible, enabled control was reached; nothing clickable is out of the tab order.
    const missed = await page.evaluate((sc) => Array.from(document.querySelectorAll(`${sc} :is(a[href], button, input, select, textarea, summary, [role=button], [tabindex])`))
      .filter((e) => !(e as HTMLButtonElement).disabled && e.getAttribute('tabindex') !== '-1' && (e as HTMLElement).getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden' && !e.hasAttribute('data-tabbed'))
      .map((e) => `${e.tagName.toLowerCase()} "${(e.textContent ?? '').trim().slice(0, 30)}"`), scope);
    return { reached, unseen, missed };
  }

  /** Moves to a page from the navigation with the keyboard only: Shift+Tab back from main to its link, then Enter. */
  async function keyboardTo(page: Page, title: string): Promise<void> {
    await page.evaluate(() => (document.querySelector('main') as HTMLElement).focus());
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Shift+Tab');
      const at = await page.evaluate(() => { const a = document.activeElement; return a?.closest('nav[aria-label=Main]') ? a.textContent : null; });
      if (at === title) {
        await page.keyboard.press('Enter');
        await loaded(page, title);
        return;
      }
    }
    throw new Error(`the navigation link "${title}" is not reached by Shift+Tab`);
  }

  const OWNER_PAGES = (Object.keys(PAGES) as PageName[]).filter((p) => PAGES[p].nav && mayOpen(p, 'owner'));

  it('every page reached and used by keyboard alone, each control with a visible focus ring; axe finds nothing', async ({ expect }) => {
    const { page, errors } = await signedIn('light');
    await page.goto(`${t.url}/?mode=test`);
    await loaded(page, 'Overview');
    const problems: Record<string, unknown> = {};
    const visit = async (name: string, scope: 'main' | 'body' = 'main') => {
      const tab = await tabThrough(page, scope);
      const found = await axe(page);
      expect(tab.reached, name).toBeGreaterThan(0);
      if (tab.unseen.length || tab.missed.length || found.length) problems[name] = { unseen: tab.unseen, missed: tab.missed, axe: found };
    };
    // The whole first page from its top: skip link, header, mode switch, navigation, then main.
    await visit('overview (whole page)', 'body');
    for (const p of OWNER_PAGES) {
      await keyboardTo(page, PAGES[p].title);
      // The support chat's messages (with their Edit and Delete buttons) arrive after its heading:
      // walked before they did, the walk missed controls that appeared behind it.
      if (p === 'support') await page.locator('main').getByText('Hello, support').first().waitFor();
      await visit(p);
    }
    // A payment's page from its row, and the account page from the header, by keyboard too.
    await keyboardTo(page, 'Payments');
    const row = page.locator(`main a[href*="${paymentId}"]`);
    await row.focus();
    await page.keyboard.press('Enter');
    await loaded(page, 'Payment');
    await visit('payment');
    await page.locator('header a.who').focus();
    await page.keyboard.press('Enter');
    await loaded(page, 'Your account');
    await visit('account');
    expect(problems).toEqual({});
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('at phone width the menu opens by keyboard and its pages are reached with Tab and Enter', async ({ expect }) => {
    const { page, errors } = await signedIn('light');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/?mode=test`);
    await loaded(page, 'Overview');
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    await page.evaluate(() => { const m = document.createElement('span'); m.tabIndex = -1; document.body.prepend(m); m.focus(); m.remove(); });
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Menu');
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    await page.keyboard.press('Enter');
    expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('true');
    for (let i = 0; i < 20 && (await focused()) !== 'Payments'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Payments');
    await page.keyboard.press('Enter');
    await loaded(page, 'Payments');
    // The menu closes on the new page, whose heading area has the focus.
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the checks themselves: grey on white and a faded text found, black on white passed; axe finds an image without alt', async ({ expect }) => {
    const page = await (await browser.newContext()).newPage();
    await page.setContent('<body style="background:#fff"><p style="color:#999">grey text</p><p style="color:#000">black text</p><p style="color:#000;opacity:.3">faded text</p><h1 style="font-size:30px;color:#888">large grey</h1></body>');
    await page.evaluate(installHelpers);
        const bad = await page.evaluate(lowContrast);
    expect(bad.map((b) => b.split('"')[1])).toEqual(['grey text', 'faded text']);
    await page.context().close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`every text of every page at least 4.5:1 against its background (3:1 large), ${scheme} scheme`, async ({ expect }) => {
      const { page, errors } = await signedIn(scheme);
      const found: Record<string, string[]> = {};
      const paths = [...OWNER_PAGES.map((p) => [p, PAGES[p].path, PAGES[p].title]), ['payment', `/payments/${paymentId}`, 'Payment'], ['account', '/account', 'Your account']];
      for (const [name, path, title] of paths) {
        await page.goto(`${t.url}${path}?mode=test`);
        await loaded(page, title);
        await page.evaluate(installHelpers);
        const bad = await page.evaluate(lowContrast);
        if (bad.length) found[name] = bad;
      }
      expect(errors).toEqual([]);
      await page.context().close();
      // Signed out: the sign-up page, in a context of its own (no session, nothing left of the pages above).
      const out = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme: scheme, bypassCSP: true })).newPage();
      const shown = explainTimeouts(out);
      await out.goto(`${t.url}/signup`);
      await shown(out.getByRole('heading', { name: 'Create your account' }));
      await out.evaluate(installHelpers);
      const bad = await out.evaluate(lowContrast);
      if (bad.length) found.signup = bad;
      expect(found).toEqual({});
      await out.context().close();
    });
  }
});
