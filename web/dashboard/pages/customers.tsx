// Customers of the mode (CONTRACT.md Customers): search by email or name, paged; owners,
// developers and finance add one by hand. Live from `customer:update`.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Pager, Section, Table, useAction, useLoad } from '../lib/ui.tsx';

export default function Customers() {
  const ctx = useApp();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/customers${qs({ q: query, limit: 50, offset })}`, ctx)), [ctx.test, query, offset]);
  useEffect(() => ctx.live.on('customer:update', () => list.reload()), [ctx.test, query, offset]);
  const edit = ctx.role !== 'viewer';
  const [f, setF] = useState({ email: '', name: '' });
  const add = useAction(async () => { await ctx.api.post(withMode('/merchant/customers', ctx), { email: f.email, name: f.name || undefined }); setF({ email: '', name: '' }); list.reload(); });
  return (
    <>
      <h1>Customers</h1>
      <Section title="Find">
        <form class="inline" aria-label="Search customers" onSubmit={(e) => { e.preventDefault(); setOffset(0); setQuery(q); }}>
          <Field label="Email or name contains">{(p) => <input {...p} type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />}</Field>
          <button type="submit">Search</button>
        </form>
      </Section>
      {edit && <Section title="Add a customer">
        <form class="inline" aria-label="Add a customer" onSubmit={(e) => { e.preventDefault(); void add.run(); }}>
          <Field label="Email">{(p) => <input {...p} type="email" required value={f.email} onInput={(e) => setF({ ...f, email: e.currentTarget.value })} />}</Field>
          <Field label="Name">{(p) => <input {...p} value={f.name} onInput={(e) => setF({ ...f, name: e.currentTarget.value })} />}</Field>
          <button type="submit" disabled={add.busy}>Add</button>
          <ErrorNote error={add.error} />
        </form></Section>}
      <Section title="Customers">
        <ErrorNote error={list.error} />
        {list.data ? <><Table caption="Customers" head={['Email', 'Name', 'Payments', 'Volume', 'Last payment']} empty="No customer yet."
          rows={(list.data.customers as Json[]).map((c) => [c.email, c.name ?? '', c.payments, `$${c.volume_usd}`, when(c.last_payment_at)])} />
          <Pager total={list.data.total} limit={50} offset={offset} onPage={setOffset} /></> : <Loading />}
      </Section>
    </>
  );
}
