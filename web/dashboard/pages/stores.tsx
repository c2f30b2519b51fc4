// Stores: every role reads, owners and developers add and rename (1 to 100 characters).
import { useEffect, useState } from 'preact/hooks';
import type { Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Section, Table, useAction, useLoad, usePaged } from '../lib/ui.tsx';

function Rename({ s, onDone }: { s: Json; onDone: () => void }) {
  const { api } = useApp();
  const [name, setName] = useState(s.name);
  const act = useAction(async () => { await api.patch(`/merchant/stores/${s.id}`, { name }); onDone(); });
  return <form class="inline" aria-label={`Rename ${s.name}`} onSubmit={(e) => { e.preventDefault(); void act.run(); }}><Field label="Name" error={act.error}>{(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field><button type="submit" class="ghost">Rename</button></form>;
}

export default function Stores() {
  const ctx = useApp();
  const list = useLoad(() => ctx.api.get('/merchant/stores'), []);
  // A store added or renamed in another tab or by a teammate (spec 6.3 `store:update`, everyone).
  useEffect(() => ctx.live.on('store:update', () => list.reload()), []);
  const [name, setName] = useState('');
  const edit = ctx.role === 'owner' || ctx.role === 'developer';
  const add = useAction(async () => { await ctx.api.post('/merchant/stores', { name }); setName(''); list.reload(); });
  const page = usePaged<Json>(list.data?.stores, 'Stores');
  return (
    <>
      <h1>Stores</h1>
      <Section title="Stores">
        {list.data ? <><Table caption="Stores" head={['Name', 'Id', 'Created', '']} empty="No store: every payment belongs to the account."
          rows={page.shown.map((s) => [s.name, <span class="mono">{s.id}</span>, when(s.created_at), edit ? <Rename key={s.id} s={s} onDone={list.reload} /> : null])} />{page.pager}</> : list.error ? <ErrorNote error={list.error} /> : <Loading />}
        {edit && <form class="inline" aria-label="New store" onSubmit={(e) => { e.preventDefault(); void add.run(); }}>
          <Field label="New store name" error={add.error}>{(p) => <input {...p} value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
          <button type="submit" disabled={add.busy}>Add store</button></form>}
      </Section>
    </>
  );
}
