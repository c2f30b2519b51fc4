// The invitation link an owner copies from the Team page (CONTRACT "Invitations": `accept_url`,
// `{PUBLIC_URL}/invitations/accept#token=…`) opens the dashboard's "Join the team" page, and the new
// member lands signed in with the invited role. The token travels in the fragment, never to a server.
import { beforeAll, describe, it } from 'vitest';
import { signupAccount, type Account } from '../harness/accounts.ts';
import { chromiumPresent } from '../harness/chromium.ts';
import { dashboardInChromium, signInOnPage } from '../harness/dashboard-chromium.ts';

const WAIT = { timeout: 30_000 };
const hasChromium = chromiumPresent('dashboard invitation browser tests');

describe.skipIf(!hasChromium)('an invitation link in Chromium', { timeout: 120_000 }, () => {
  const env = dashboardInChromium();
  let owner: Account;

  beforeAll(async () => {
    owner = await signupAccount(env.t.app, { merchant_name: 'Invites' });
  });

  it('opens the page that accepts it, from the link the Team page shows', async ({ expect }) => {
    const context = await env.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${env.t.url}/team`);
    await signInOnPage(page, owner);
    const form = page.getByRole('form', { name: 'Invite' });
    await form.waitFor(WAIT);
    await form.getByLabel('Email').fill('newcomer@example.com');
    await form.getByLabel('Role').selectOption('finance');
    await form.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByTestId('secret').innerText();
    expect(link).toMatch(/#token=[0-9a-f]{64}$/);
    await context.close();

    const invitee = await env.browser.newContext({ locale: 'en-US' });
    const join = await invitee.newPage();
    const errors: string[] = [];
    join.on('pageerror', (e) => errors.push(e.message));
    const res = await join.goto(link.replace(/^https?:\/\/[^/]+/, env.t.url));
    expect(res?.status()).toBe(200);
    await join.getByRole('heading', { name: 'Join the team' }).waitFor(WAIT);
    await join.getByLabel('Choose a password').fill('newcomer-password');
    await join.getByRole('button', { name: 'Accept the invitation' }).click();
    await join.getByRole('navigation', { name: 'Main' }).waitFor(WAIT);
    expect(await join.locator('header .who').innerText()).toBe('newcomer@example.com (finance)');
    expect(new URL(join.url()).hash).toBe('');
    expect(errors).toEqual([]);
    await invitee.close();
  });
});
