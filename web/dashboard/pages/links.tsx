// Payment links of the mode (CONTRACT.md Payment links): any role reads; owners and developers
// create them (with the optional coins, return pages and store the route takes), rename, describe,
// pause and resume them. Live from `link:update`.
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

/** The new-link form, empty. */
const NEW_LINK = { name: '', amount_usd: '', description: '', success_url: '', cancel_url: '', store_id: '', tokens: [] as string[] };

export default function Links() {
  const ctx = useApp();
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/links${qs({ limit: 50, offset })}`, ctx)), [ctx.test, offset]);
  useEffect(() => ctx.live.on('link:update', () => list.reload()), [ctx.test, offset]);
  const edit = ctx.role === 'owner' || ctx.role === 'developer';
  const [f, setF] = useState(NEW_LINK);
  // The coins a link may offer are the account's accepted ones of the mode; none chosen: all of them.
  const tokens = useLoad(async () => (edit ? ctx.api.get(withMode('/merchant/tokens', ctx)) : { tokens: [] }), [ctx.test]);
  const stores = useLoad(async () => (edit ? ctx.api.get('/merchant/stores') : { stores: [] }), []);
  const add = useAction(async () => {
    const body: Json = { name: f.name, amount_usd: f.amount_usd };
    for (const k of ['description', 'success_url', 'cancel_url', 'store_id'] as const) if (f[k].trim()) body[k] = f[k].trim();
    if (f.tokens.length > 0) body.tokens = f.tokens;
    await ctx.api.post(withMode('/merchant/links', ctx), body);
    setF(NEW_LINK);
    list.reload();
  });
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
          <Field label="Success URL" hint="Optional: the button after payment">{(p) => <input {...p} type="url" value={f.success_url} onInput={(e) => setF({ ...f, success_url: e.currentTarget.value })} />}</Field>
          <Field label="Cancel URL" hint="Optional: the link when unpaid">{(p) => <input {...p} type="url" value={f.cancel_url} onInput={(e) => setF({ ...f, cancel_url: e.currentTarget.value })} />}</Field>
          {(stores.data?.stores ?? []).length > 0 && <Field label="Store">{(p) => <select {...p} value={f.store_id} onChange={(e) => setF({ ...f, store_id: e.currentTarget.value })}><option value="">Whole account</option>{(stores.data!.stores as Json[]).map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}</select>}</Field>}
          {tokens.data && <fieldset><legend>Coins offered</legend>
            {(tokens.data.tokens as Json[]).filter((x) => x.enabled).map((x) => <label key={x.token}><input type="checkbox" checked={f.tokens.includes(x.token)} onChange={(e) => setF({ ...f, tokens: e.currentTarget.checked ? [...f.tokens, x.token] : f.tokens.filter((y) => y !== x.token) })} /> {x.token} </label>)}
            <small>None checked: every coin you accept</small></fieldset>}
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
