// Team (owner): members with their roles, a member added with a password the owner gives them
// (spec 4.4 POST /merchant/users), invitations (the accept link shown once), live from `team:update`.
import { useEffect, useState } from 'preact/hooks';
import type { Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ROLES } from '../lib/paths.ts';
import { ErrorNote, Field, Loading, Section, SecretOnce, Status, Table, useAction, useLoad, usePaged } from '../lib/ui.tsx';

export default function Team() {
  const ctx = useApp();
  const users = useLoad(() => ctx.api.get('/merchant/users'), []);
  const invites = useLoad(() => ctx.api.get('/merchant/invitations'), []);
  useEffect(() => ctx.live.on('team:update', () => { users.reload(); invites.reload(); }), []);
  const [f, setF] = useState({ email: '', role: 'developer' });
  const [link, setLink] = useState<string | null>(null);
  const [m, setM] = useState({ email: '', password: '', role: 'developer' });
  const addMember = useAction(async () => { await ctx.api.post('/merchant/users', m); setM({ ...m, email: '', password: '' }); users.reload(); });
  const invite = useAction(async () => { const r = await ctx.api.post('/merchant/invitations', f); setLink(r.accept_url); setF({ ...f, email: '' }); invites.reload(); });
  const role = useAction(async (id: string, r: string) => { await ctx.api.patch(`/merchant/users/${id}`, { role: r }); users.reload(); });
  const remove = useAction(async (id: string) => { await ctx.api.del(`/merchant/users/${id}`); users.reload(); });
  const revoke = useAction(async (id: string) => { await ctx.api.del(`/merchant/invitations/${id}`); invites.reload(); });
  const members = usePaged<Json>(users.data?.users, 'Members');
  const invited = usePaged<Json>(invites.data?.invitations, 'Invitations');
  return (
    <>
      <h1>Team</h1>
      <Section title="Members">
        <ErrorNote error={role.error ?? remove.error} />
        {users.data ? <><Table caption="Members" head={['Email', 'Role', 'Last sign-in', '']}
          rows={members.shown.map((u) => [u.email,
            <select aria-label={`Role of ${u.email}`} value={u.role} disabled={u.id === ctx.user.id} onChange={(e) => { void role.run(u.id, e.currentTarget.value); }}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select>,
            when(u.last_login_at), u.id === ctx.user.id ? 'you' : <button type="button" class="ghost" onClick={() => { if (confirm(`Remove ${u.email}?`)) void remove.run(u.id); }}>Remove</button>])} />{members.pager}</> : users.error ? <ErrorNote error={users.error} /> : <Loading />}
        <form class="inline" aria-label="Add a member" onSubmit={(e) => { e.preventDefault(); void addMember.run(); }}>
          <Field label="Email">{(p) => <input {...p} type="email" required value={m.email} onInput={(e) => setM({ ...m, email: e.currentTarget.value })} />}</Field>
          <Field label="Their password" hint="At least 8 characters; give it to them yourself, or invite them below">{(p) => <input {...p} type="password" autocomplete="new-password" required value={m.password} onInput={(e) => setM({ ...m, password: e.currentTarget.value })} />}</Field>
          <Field label="Role">{(p) => <select {...p} value={m.role} onChange={(e) => setM({ ...m, role: e.currentTarget.value })}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select>}</Field>
          <button type="submit" disabled={addMember.busy}>Add member</button>
          <ErrorNote error={addMember.error} />
        </form>
      </Section>
      <Section title="Invitations">
        {link && <SecretOnce label="Invitation link" secret={link} onDone={() => setLink(null)} />}
        <form class="inline" aria-label="Invite" onSubmit={(e) => { e.preventDefault(); void invite.run(); }}>
          <Field label="Email">{(p) => <input {...p} type="email" required value={f.email} onInput={(e) => setF({ ...f, email: e.currentTarget.value })} />}</Field>
          <Field label="Role">{(p) => <select {...p} value={f.role} onChange={(e) => setF({ ...f, role: e.currentTarget.value })}>{ROLES.map((r) => <option key={r}>{r}</option>)}</select>}</Field>
          <button type="submit" disabled={invite.busy}>Invite</button>
          <ErrorNote error={invite.error} />
        </form>
        <ErrorNote error={revoke.error} />
        {invites.data ? <><Table caption="Invitations" head={['Email', 'Role', 'Status', 'Expires', '']} empty="No invitation."
          rows={invited.shown.map((i) => [i.email, i.role, <Status value={i.status} />, when(i.expires_at), i.status === 'pending' ? <button type="button" class="ghost" onClick={() => { void revoke.run(i.id); }}>Revoke</button> : null])} />{invited.pager}</> : <Loading />}
      </Section>
    </>
  );
}
