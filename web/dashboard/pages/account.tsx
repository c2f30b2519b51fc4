// Your account: who you are, password change (every session ends: signed in again), your e-mail
// notifications, and signing out everywhere.
import { useState } from 'preact/hooks';
import { useApp } from '../lib/context.ts';
import { END_REASONS } from '../lib/session.ts';
import { ErrorNote, Field, Section, useAction } from '../lib/ui.tsx';
import EmailNotifications from './email-notifications.tsx';

export default function Account() {
  const ctx = useApp();
  const [f, setF] = useState({ current_password: '', new_password: '' });
  const change = useAction(async () => {
    await ctx.api.post('/merchant/me/password', f);
    await ctx.session.signOut(END_REASONS.password_changed);
  });
  const all = useAction(async () => { await ctx.api.post('/merchant/auth/logout-all'); await ctx.session.signOut('Every session of yours was ended.'); });
  return (
    <>
      <h1>Your account</h1>
      <Section title="You"><dl class="kv"><dt>Email</dt><dd>{ctx.user.email}</dd><dt>Role</dt><dd>{ctx.role}</dd><dt>Account</dt><dd>{ctx.merchant.name}</dd></dl></Section>
      <Section title="Change password">
        <form onSubmit={(e) => { e.preventDefault(); void change.run(); }} aria-label="Change password">
          <Field label="Current password">{(p) => <input {...p} type="password" autocomplete="current-password" required value={f.current_password} onInput={(e) => setF({ ...f, current_password: e.currentTarget.value })} />}</Field>
          <Field label="New password" hint="At least 8 characters; you sign in again after">{(p) => <input {...p} type="password" autocomplete="new-password" required value={f.new_password} onInput={(e) => setF({ ...f, new_password: e.currentTarget.value })} />}</Field>
          <ErrorNote error={change.error} />
          <button type="submit" disabled={change.busy}>Change password</button>
        </form>
      </Section>
      <EmailNotifications />
      <Section title="Sessions"><button type="button" class="ghost" onClick={() => { void all.run(); }}>Sign out everywhere</button><ErrorNote error={all.error} /></Section>
    </>
  );
}
