import { describe, expect, it } from 'vitest';
import { composeInvitationMail } from './compose.ts';

describe('composeInvitationMail', () => {
  const base = { inviter: 'owner@shop.test', merchantName: 'Acme', role: 'developer', link: 'https://gw.test/invitations/accept#token=ab', expiresAt: new Date('2026-03-13T15:30:45Z') };

  it('names who invited and the merchant, carries the link and its expiry', () => {
    const m = composeInvitationMail(base);
    expect(m.subject).toBe('owner@shop.test invited you to join Acme');
    expect(m.body.split('\n')).toEqual([
      'owner@shop.test invited you to join the team of Acme as developer.', '',
      'Accept the invitation and choose your password:', base.link, '',
      'The link works once, until 2026-03-13 15:30 UTC. If you did not expect this invitation, ignore this e-mail:',
      'nothing happens without the link.', '',
    ]);
  });

  it('keeps the subject one line, and reads without a name', () => {
    expect(composeInvitationMail({ ...base, merchantName: 'Evil\r\nBcc: x@y.test' }).subject).toBe('owner@shop.test invited you to join Evil Bcc: x@y.test');
    expect(composeInvitationMail({ ...base, merchantName: ' ', inviter: '' }).subject).toBe('A team owner invited you to join their team');
  });
});
