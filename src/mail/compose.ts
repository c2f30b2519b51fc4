// Pure: the e-mail of a notification to one member: a subject naming the merchant, the
// notification's own text, where to read it, and how to stop such mail.
export interface Composed { subject: string; body: string }

export function composeMail(n: { title: string; body: string }, merchantName: string, publicUrl: string): Composed {
  // A header line: no line break of a merchant's name may reach it.
  const name = merchantName.replace(/[\r\n]+/g, ' ').trim();
  return {
    subject: name === '' ? n.title : `${n.title} (${name})`,
    body: [
      n.body,
      '',
      `Read it in the dashboard: ${publicUrl}/`,
      '',
      'You get this e-mail as a member of the team. To stop it, change your e-mail notifications in the',
      'dashboard (PATCH /merchant/me/email-notifications).',
      '',
    ].join('\n'),
  };
}

/**
 * Pure: the e-mail of an invitation to the invited address: a subject naming who invited and the
 * merchant, the accept link and when it stops working. The link is the only secret in it.
 */
export function composeInvitationMail(i: { inviter: string; merchantName: string; role: string; link: string; expiresAt: Date }): Composed {
  // header lines: no line break of a name may reach them
  const oneLine = (v: string) => v.replace(/[\r\n]+/g, ' ').trim();
  const inviter = oneLine(i.inviter) || 'A team owner';
  const name = oneLine(i.merchantName);
  const expires = `${i.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return {
    subject: name === '' ? `${inviter} invited you to join their team` : `${inviter} invited you to join ${name}`,
    body: [
      `${inviter} invited you to join the team of ${name === '' ? 'their merchant account' : name} as ${i.role}.`,
      '',
      'Accept the invitation and choose your password:',
      i.link,
      '',
      `The link works once, until ${expires}. If you did not expect this invitation, ignore this e-mail:`,
      'nothing happens without the link.',
      '',
    ].join('\n'),
  };
}
