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
