// Customers of the mode (CONTRACT.md Customers): search by email or name, paged, a customer's recent
// payments (GET /merchant/customers/{id}); owners, developers and finance add one by hand (email,
// name, metadata) and edit its name and metadata. Live from `customer:update`.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { usd, when } from '../lib/format.ts';
import { href } from '../lib/router.ts';
import { ErrorNote, Field, Loading, Pager, Section, Status, Table, errorFor, useAction, useLoad } from '../lib/ui.tsx';

/** Said when the metadata box holds no JSON at all (the API's own message covers the rest). */
export const METADATA_NOT_JSON = 'metadata must be a JSON object, like {"plan": "pro"}';

/** The metadata box's text as the API takes it: empty is none (null), else a JSON value. */
function parseMetadata(text: string): unknown {
  if (text.trim() === '') return null;
  try { return JSON.parse(text); } catch { throw new Error(METADATA_NOT_JSON); }
}

/** The edit form of one customer (PATCH: `name`, `metadata`; empty removes either). */
function EditCustomer({ customer, onDone }: { customer: Json; onDone: () => void }) {
  const ctx = useApp();
  const [f, setF] = useState({ name: (customer.name ?? '') as string, metadata: customer.metadata ? JSON.stringify(customer.metadata, null, 2) : '' });
  const save = useAction(async () => {
    const metadata = parseMetadata(f.metadata);
    await ctx.api.patch(`/merchant/customers/${customer.id}`, { name: f.name.trim() === '' ? null : f.name, metadata });
    onDone();
  });
  const nameErr = errorFor(save.error, 'name');
  const metaErr = errorFor(save.error, 'metadata');
  return (
    <Section title={`Edit customer ${customer.email}`}>
      <form aria-label="Edit customer" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
        <Field label="Customer name" error={nameErr} hint="Empty: none">{(p) => <input {...p} value={f.name} onInput={(e) => setF({ ...f, name: e.currentTarget.value })} />}</Field>
        <Field label="Metadata (JSON)" error={metaErr} hint="Empty: none">{(p) => <textarea {...p} rows={4} class="mono" value={f.metadata} onInput={(e) => setF({ ...f, metadata: e.currentTarget.value })} />}</Field>
        <div class="row">
          <button type="submit" disabled={save.busy}>Save customer</button>
          <button type="button" class="ghost" onClick={onDone}>Cancel</button>
        </div>
        {!nameErr && !metaErr && <ErrorNote error={save.error} />}
      </form>
    </Section>
  );
}

/** A customer's recent payments (up to 20, as the API gives them), each leading to its page. */
function CustomerPayments({ customer, onClose }: { customer: Json; onClose: () => void }) {
  const ctx = useApp();
  const c = useLoad(() => ctx.api.get(`/merchant/customers/${customer.id}`), [customer.id]);
  useEffect(() => ctx.live.on('customer:update', (x: Json) => { if (x?.id === customer.id) c.reload(); }), [customer.id]);
  const payments = c.data?.customer?.recent_payments as Json[] | undefined;
  return (
    <Section title={`Payments of ${customer.email}`} actions={<button type="button" class="ghost" onClick={onClose}>Close</button>}>
      {payments ? <Table caption={`Recent payments of ${customer.email}`} head={['Created', 'Order', 'Status', 'Amount', 'Coin']} empty="No payment yet."
        rows={payments.map((p) => [when(p.created_at), <a href={href(`/payments/${p.id}`)}>{p.order_id}</a>, <Status value={p.status} />, usd(p.usd_amount), p.token || '—'])} />
        : c.error ? <ErrorNote error={c.error} /> : <Loading />}
    </Section>
  );
}

export default function Customers() {
  const ctx = useApp();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/customers${qs({ q: query, limit: 50, offset })}`, ctx)), [ctx.test, query, offset]);
  useEffect(() => ctx.live.on('customer:update', () => list.reload()), [ctx.test, query, offset]);
  const edit = ctx.role !== 'viewer';
  const [f, setF] = useState({ email: '', name: '', metadata: '' });
  const [editing, setEditing] = useState<Json | null>(null);
  const [viewing, setViewing] = useState<Json | null>(null);
  const add = useAction(async () => {
    const metadata = parseMetadata(f.metadata);
    await ctx.api.post(withMode('/merchant/customers', ctx), { email: f.email, name: f.name || undefined, ...(metadata === null ? {} : { metadata }) });
    setF({ email: '', name: '', metadata: '' });
    list.reload();
  });
  const addMetaErr = errorFor(add.error, 'metadata');
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
          <Field label="Metadata (JSON)" error={addMetaErr} hint="Optional, like {&quot;plan&quot;: &quot;pro&quot;}">{(p) => <textarea {...p} rows={1} class="mono" value={f.metadata} onInput={(e) => setF({ ...f, metadata: e.currentTarget.value })} />}</Field>
          <button type="submit" disabled={add.busy}>Add</button>
          {!addMetaErr && <ErrorNote error={add.error} />}
        </form></Section>}
      {editing && <EditCustomer key={editing.id} customer={editing} onDone={() => { setEditing(null); list.reload(); }} />}
      {viewing && <CustomerPayments key={viewing.id} customer={viewing} onClose={() => setViewing(null)} />}
      <Section title="Customers">
        <ErrorNote error={list.error} />
        {list.data ? <><Table caption="Customers" head={['Email', 'Name', 'Payments', 'Volume', 'Last payment', '']} empty="No customer yet."
          rows={(list.data.customers as Json[]).map((c) => [c.email, c.name ?? '', c.payments, usd(c.volume_usd), when(c.last_payment_at), <span class="row">
            <button type="button" class="ghost" aria-label={`Payments of ${c.email}`} onClick={() => setViewing(c)}>Payments</button>
            {edit && <button type="button" class="ghost" aria-label={`Edit ${c.email}`} onClick={() => setEditing(c)}>Edit</button>}</span>])} />
          <Pager total={list.data.total} limit={50} offset={offset} onPage={setOffset} /></> : <Loading />}
      </Section>
    </>
  );
}
