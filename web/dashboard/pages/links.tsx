// Payment links of the mode (CONTRACT.md Payment links): any role reads; owners and developers
// create, rename, describe, pause and resume them. Live from `link:update`.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { usd } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Pager, Section, Status, Table, errorFor, useAction, useLoad } from '../lib/ui.tsx';

/** The edit form of one link (PATCH: `name`, `description`; an empty description removes it). */
function EditLink({ link, onDone }: { link: Json; onDone: () => void }) {
  const ctx = useApp();
  const [f, setF] = useState({ name: link.name as string, description: (link.description ?? '') as string });
  const save = useAction(async () => { await ctx.api.patch(`/merchant/links/${link.id}`, { name: f.name, description: f.description.trim() === '' ? null : f.description }); onDone(); });
  const nameErr = errorFor(save.error, 'name');
  const descErr = errorFor(save.error, 'description');
  return (
    <Section title={`Edit link “${link.name}”`}>
      <form class="inline" aria-label="Edit payment link" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
        <Field label="Link name" error={nameErr}>{(p) => <input {...p} value={f.name} onInput={(e) => setF({ ...f, name: e.currentTarget.value })} />}</Field>
        <Field label="Link description" error={descErr} hint="Empty: none">{(p) => <input {...p} value={f.description} onInput={(e) => setF({ ...f, description: e.currentTarget.value })} />}</Field>
        <button type="submit" disabled={save.busy}>Save link</button>
        <button type="button" class="ghost" onClick={onDone}>Cancel</button>
        {!nameErr && !descErr && <ErrorNote error={save.error} />}
      </form>
    </Section>
  );
}

export default function Links() {
  const ctx = useApp();
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/links${qs({ limit: 50, offset })}`, ctx)), [ctx.test, offset]);
  useEffect(() => ctx.live.on('link:update', () => list.reload()), [ctx.test, offset]);
  const edit = ctx.role === 'owner' || ctx.role === 'developer';
  const [f, setF] = useState({ name: '', amount_usd: '', description: '' });
  const add = useAction(async () => { await ctx.api.post(withMode('/merchant/links', ctx), { name: f.name, amount_usd: f.amount_usd, description: f.description || undefined }); setF({ name: '', amount_usd: '', description: '' }); list.reload(); });
  const [editing, setEditing] = useState<Json | null>(null);
  const toggle = useAction(async (l: Json) => { await ctx.api.patch(`/merchant/links/${l.id}`, { active: !l.active }); list.reload(); });
  return (
    <>
      <h1>Payment links</h1>
      {edit && <Section title="New link">
        <form class="inline" aria-label="New payment link" onSubmit={(e) => { e.preventDefault(); void add.run(); }}>
          <Field label="Name">{(p) => <input {...p} required value={f.name} onInput={(e) => setF({ ...f, name: e.currentTarget.value })} />}</Field>
          <Field label="Amount (USD)">{(p) => <input {...p} required inputMode="decimal" value={f.amount_usd} onInput={(e) => setF({ ...f, amount_usd: e.currentTarget.value })} />}</Field>
          <Field label="Description">{(p) => <input {...p} value={f.description} onInput={(e) => setF({ ...f, description: e.currentTarget.value })} />}</Field>
          <button type="submit" disabled={add.busy}>Create link</button>
          <ErrorNote error={add.error} />
        </form></Section>}
      {editing && <EditLink key={editing.id} link={editing} onDone={() => { setEditing(null); list.reload(); }} />}
      <Section title="Links">
        <ErrorNote error={toggle.error ?? list.error} />
        {list.data ? <><Table caption="Payment links" head={['Name', 'Amount', 'Payments', 'Volume', 'Link', 'State', '']} empty="No link yet."
          rows={(list.data.links as Json[]).map((l) => [l.name, usd(l.amount_usd), l.payments, usd(l.volume_usd), <a href={l.url} target="_blank" rel="noopener">{l.url}</a>, <Status value={l.active ? 'active' : 'canceled'} />,
            edit ? <span class="row">
              <button type="button" class="ghost" aria-label={`Edit ${l.name}`} onClick={() => setEditing(l)}>Edit</button>
              <button type="button" class="ghost" onClick={() => { void toggle.run(l); }}>{l.active ? 'Pause' : 'Resume'}</button></span> : null])} />
          <Pager total={list.data.total} limit={50} offset={offset} onPage={setOffset} /></> : <Loading />}
      </Section>
    </>
  );
}
