// Payment links of the mode (CONTRACT.md Payment links): any role reads; owners and developers
// create, pause and resume them. Live from `link:update`.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { ErrorNote, Field, Loading, Pager, Section, Status, Table, useAction, useLoad } from '../lib/ui.tsx';

export default function Links() {
  const ctx = useApp();
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/links${qs({ limit: 50, offset })}`, ctx)), [ctx.test, offset]);
  useEffect(() => ctx.live.on('link:update', () => list.reload()), [ctx.test, offset]);
  const edit = ctx.role === 'owner' || ctx.role === 'developer';
  const [f, setF] = useState({ name: '', amount_usd: '', description: '' });
  const add = useAction(async () => { await ctx.api.post(withMode('/merchant/links', ctx), { name: f.name, amount_usd: f.amount_usd, description: f.description || undefined }); setF({ name: '', amount_usd: '', description: '' }); list.reload(); });
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
      <Section title="Links">
        <ErrorNote error={toggle.error ?? list.error} />
        {list.data ? <><Table caption="Payment links" head={['Name', 'Amount', 'Payments', 'Volume', 'Link', 'State', '']} empty="No link yet."
          rows={(list.data.links as Json[]).map((l) => [l.name, `$${l.amount_usd}`, l.payments, `$${l.volume_usd}`, <a href={l.url} target="_blank" rel="noopener">{l.url}</a>, <Status value={l.active ? 'active' : 'canceled'} />,
            edit ? <button type="button" class="ghost" onClick={() => { void toggle.run(l); }}>{l.active ? 'Pause' : 'Resume'}</button> : null])} />
          <Pager total={list.data.total} limit={50} offset={offset} onPage={setOffset} /></> : <Loading />}
      </Section>
    </>
  );
}
