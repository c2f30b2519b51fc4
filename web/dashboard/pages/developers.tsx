// Developers: API keys (owners, developers; the secret shown once), the webhook of the mode (URL,
// signing secret with roll for owners, test ping) and the deliveries inspector for every role:
// history, redeliver and resolve, kept live from `webhook:delivery`.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Section, SecretOnce, Status, Table, useAction, useLoad, usePaged } from '../lib/ui.tsx';

function ApiKeys() {
  const ctx = useApp();
  const keys = useLoad(() => ctx.api.get(withMode('/merchant/api-keys', ctx)), [ctx.test]);
  const stores = useLoad(() => ctx.api.get('/merchant/stores'), []);
  // Keys made or revoked elsewhere (spec 6.3 `api_key:update`, owners and developers; both modes
  // arrive, filtered on livemode) and the stores a key may be tied to (`store:update`).
  useEffect(() => ctx.live.on('api_key:update', (k: Json) => { if (k?.livemode === !ctx.test) keys.reload(); }), [ctx.test]);
  useEffect(() => ctx.live.on('store:update', () => stores.reload()), []);
  const [f, setF] = useState({ label: '', access: 'full', store_id: '' });
  const [made, setMade] = useState<Json | null>(null);
  const create = useAction(async () => {
    const body: Json = { label: f.label || undefined, access: f.access };
    if (f.store_id) body.store_id = f.store_id;
    setMade(await ctx.api.post(withMode('/merchant/api-keys', ctx), body));
    keys.reload();
  });
  const revoke = useAction(async (id: string) => { await ctx.api.del(`/merchant/api-keys/${id}`); keys.reload(); });
  const page = usePaged<Json>(keys.data?.api_keys, 'API keys');
  // A storefront key's store by its name (the id while the stores load, or for one not listed).
  const storeName = (id: string) => ((stores.data?.stores ?? []) as Json[]).find((x) => x.id === id)?.name ?? id;
  return (
    <Section title={`API keys (${ctx.test ? 'test' : 'live'})`}>
      {made && <SecretOnce label={`New key "${made.api_key.label}"`} secret={made.secret} onDone={() => setMade(null)} />}
      <form class="inline" aria-label="New API key" onSubmit={(e) => { e.preventDefault(); void create.run(); }}>
        <Field label="Label">{(p) => <input {...p} value={f.label} onInput={(e) => setF({ ...f, label: e.currentTarget.value })} />}</Field>
        <Field label="Access">{(p) => <select {...p} value={f.access} onChange={(e) => setF({ ...f, access: e.currentTarget.value })}><option value="full">full</option><option value="read">read only</option></select>}</Field>
        <Field label="Store">{(p) => <select {...p} value={f.store_id} onChange={(e) => setF({ ...f, store_id: e.currentTarget.value })}><option value="">Whole account</option>{(stores.data?.stores ?? []).map((s: Json) => <option key={s.id} value={s.id}>{s.name}</option>)}</select>}</Field>
        <button type="submit" disabled={create.busy}>Create key</button>
        <ErrorNote error={create.error} />
      </form>
      <ErrorNote error={revoke.error ?? keys.error} />
      {keys.data ? <><Table caption="API keys" head={['Label', 'Ends in', 'Access', 'Store', 'Created', 'Last used', '']}
        rows={page.shown.map((k) => [k.label, <code>…{k.last4}</code>, k.access, k.store_id ? storeName(k.store_id) : 'all', when(k.created_at), when(k.last_used_at),
          k.revoked_at ? <Status value="revoked" /> : <button type="button" class="ghost" onClick={() => { if (confirm(`Revoke "${k.label}"? It stops working at once.`)) void revoke.run(k.id); }}>Revoke</button>])} />{page.pager}</> : <Loading />}
    </Section>
  );
}

function Webhook() {
  const ctx = useApp();
  const hook = useLoad(() => ctx.api.get(withMode('/merchant/webhook', ctx)), [ctx.test]);
  // The URL set or removed, or the secret rolled, elsewhere (spec 6.3 `webhook:update`, without the
  // secret: read again, so a rolled secret shows too). A URL being typed here is kept.
  useEffect(() => ctx.live.on('webhook:update', (w: Json) => { if (w?.livemode === !ctx.test) hook.reload(); }), [ctx.test]);
  const [url, setUrl] = useState<string | null>(null);
  const [reveal, setReveal] = useState(false);
  // The URL the field shows: the one typed, else the stored one (saving the form untouched must not
  // send an empty URL, which the API refuses with `url is required`).
  const save = useAction(async () => { hook.set(await ctx.api.put(withMode('/merchant/webhook', ctx), { url: url ?? hook.data?.webhook?.url ?? '' })); setUrl(null); });
  const remove = useAction(async () => { hook.set(await ctx.api.del(withMode('/merchant/webhook', ctx))); setUrl(null); });
  const roll = useAction(async () => { hook.set(await ctx.api.post(withMode('/merchant/webhook/roll-secret', ctx))); setReveal(true); });
  const [pinged, setPinged] = useState(false);
  const ping = useAction(async () => { setPinged(false); await ctx.api.post(withMode('/merchant/webhook/test', ctx)); setPinged(true); });
  if (!hook.data) return <Section title="Webhook">{hook.error ? <ErrorNote error={hook.error} /> : <Loading />}</Section>;
  const w = hook.data.webhook as Json;
  return (
    <Section title={`Webhook (${ctx.test ? 'test' : 'live'})`}>
      <form class="inline" aria-label="Webhook URL" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
        <Field label="Endpoint URL" error={save.error} hint="https, on a public host">{(p) => <input {...p} type="url" value={url ?? w.url ?? ''} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/webhooks" />}</Field>
        <button type="submit" disabled={save.busy}>Save</button>
        {w.url && <button type="button" class="ghost" disabled={remove.busy} onClick={() => { void remove.run(); }}>Remove</button>}
      </form>
      <ErrorNote error={remove.error} />
      <dl class="kv">
        <dt>Signing secret</dt>
        <dd><code data-testid="webhook-secret">{reveal ? w.secret : '•'.repeat(16)}</code> <button type="button" class="ghost" onClick={() => setReveal(!reveal)}>{reveal ? 'Hide' : 'Show'}</button>
          {ctx.role === 'owner' && <button type="button" class="ghost" disabled={roll.busy} onClick={() => { if (confirm('Roll the secret? The old one stops working at once.')) void roll.run(); }}>Roll secret</button>}
          <ErrorNote error={roll.error} /></dd>
        <dt>Updated</dt><dd>{when(w.updated_at)}</dd>
      </dl>
      <p><button type="button" disabled={ping.busy} onClick={() => { void ping.run(); }}>Send a test ping</button>{pinged && <span role="status"> Ping queued: it shows in the deliveries below.</span>}</p>
      <ErrorNote error={ping.error} />
    </Section>
  );
}

function Delivery({ id, onClose }: { id: string; onClose: () => void }) {
  const ctx = useApp();
  const d = useLoad(() => ctx.api.get(`/merchant/webhooks/deliveries/${id}`), [id]);
  const [note, setNote] = useState('');
  const redeliver = useAction(async () => { await ctx.api.post(`/merchant/webhooks/deliveries/${id}/redeliver`); d.reload(); });
  const resolve = useAction(async () => { await ctx.api.post(`/merchant/webhooks/deliveries/${id}/resolve`, note ? { note } : {}); d.reload(); });
  useEffect(() => ctx.live.on('webhook:delivery', (x: Json) => { if (x.id === id) d.reload(); }), [id]);
  if (!d.data) return d.error ? <ErrorNote error={d.error} /> : <Loading />;
  const x = d.data.delivery as Json;
  const dev = ctx.role === 'owner' || ctx.role === 'developer';
  return (
    <section class="card" aria-label="Delivery">
      <header class="card-head"><h2>Delivery {x.event_type} <Status value={x.status} /></h2><button type="button" class="ghost" onClick={onClose}>Close</button></header>
      <dl class="kv"><dt>URL</dt><dd class="mono">{x.url}</dd>
        {/* spec 2 Delivery `target`: a payment with its own webhook_url gets its events there */}
        <dt>Sent to</dt><dd>{x.target === 'payment' ? 'the payment\'s own webhook URL' : 'the account\'s webhook URL'}</dd>
        <dt>Attempts</dt><dd>{x.attempts} of {x.max_attempts}</dd>
        {x.last_attempt_at && <><dt>Last attempt</dt><dd>{when(x.last_attempt_at)}</dd></>}
        {x.delivered_at ? <><dt>Delivered</dt><dd>{when(x.delivered_at)}</dd></> : x.resolved_at ? <><dt>Resolved</dt><dd>{when(x.resolved_at)}</dd></>
          : ['pending', 'sending'].includes(x.status) ? <><dt>Next attempt</dt><dd>{when(x.next_attempt_at)}</dd></> : null}
        {x.resolution_note && <><dt>Note</dt><dd>{x.resolution_note}</dd></>}</dl>
      {dev && (
        <div class="row">
          <button type="button" disabled={redeliver.busy} onClick={() => { void redeliver.run(); }}>Redeliver</button>
          {x.status === 'failed' && <form class="inline" aria-label="Resolve" onSubmit={(e) => { e.preventDefault(); void resolve.run(); }}>
            <Field label="Note (optional)">{(p) => <input {...p} value={note} onInput={(e) => setNote(e.currentTarget.value)} />}</Field>
            <button type="submit" class="ghost">Mark resolved</button></form>}
        </div>
      )}
      <ErrorNote error={redeliver.error ?? resolve.error} />
      <h3>History</h3>
      <Table caption="Attempts" head={['When', 'Status', 'Time', 'Answer or error', 'Note']} empty="No attempt yet."
        rows={((x.history ?? []) as Json[]).slice().reverse().map((h) => [when(h.at), h.status_code ?? '—', h.millis !== undefined ? `${h.millis} ms` : '—', h.error ?? <pre>{h.response}</pre>, h.note ?? ''])} />
      <h3>Payload</h3>
      <pre>{x.payload}</pre>
    </section>
  );
}

/** Deliveries a page; one more is asked for, to know whether an older page exists. */
const PAGE = 50;

function Deliveries() {
  const ctx = useApp();
  const [status, setStatus] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  // Keyset pages (`before` = the last id of the page above): the cursors of the pages opened so far.
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors[cursors.length - 1];
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/webhooks/deliveries${qs({ status, limit: PAGE + 1, before })}`, ctx)), [ctx.test, status, before]);
  useEffect(() => ctx.live.on('webhook:delivery', (d: Json) => {
    if (d.livemode === ctx.test || !list.data) return;
    const rows = list.data.deliveries as Json[];
    const i = rows.findIndex((r) => r.id === d.id);
    if (i >= 0) list.set({ ...list.data, deliveries: rows.map((r, j) => (j === i ? d : r)) });
    // A new one goes on top of the first page only; later pages stay as they are (their cursor holds).
    else if (!before && (!status || d.status === status)) list.set({ ...list.data, deliveries: [d, ...rows].slice(0, PAGE + 1) });
  }), [ctx.test, status, before, list.data]);
  const all = (list.data?.deliveries ?? []) as Json[];
  const shown = all.slice(0, PAGE);
  const more = all.length > PAGE;
  return (
    <Section title="Webhook deliveries" actions={<label>Status <select value={status} onChange={(e) => { setCursors([]); setStatus(e.currentTarget.value); }}><option value="">Any</option>{['pending', 'sending', 'delivered', 'failed', 'resolved'].map((s) => <option key={s}>{s}</option>)}</select></label>}>
      {open && <Delivery id={open} onClose={() => setOpen(null)} />}
      {list.data ? <>
        <Table caption="Deliveries" head={['Created', 'Event', 'Status', 'Attempts', 'Last answer', '']} empty={before ? 'No older delivery.' : 'No delivery yet.'}
          rows={shown.map((d) => [when(d.created_at), d.event_type, <Status value={d.status} />, `${d.attempts}/${d.max_attempts}`, d.last_status_code ?? d.last_error ?? '—', <button type="button" class="ghost" aria-label={`Inspect ${d.event_type} of ${when(d.created_at)}`} onClick={() => setOpen(d.id)}>Inspect</button>])} />
        {(more || cursors.length > 0) && <nav class="pager" aria-label="Delivery pages">
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button>
          <span>Page {cursors.length + 1}</span>
          <button type="button" disabled={!more} onClick={() => setCursors([...cursors, shown[shown.length - 1].id])}>Older</button>
        </nav>}
      </> : list.error ? <ErrorNote error={list.error} /> : <Loading />}
      {list.data && list.error ? <ErrorNote error={list.error} /> : null}
    </Section>
  );
}

export default function Developers() {
  const { role } = useApp();
  const dev = role === 'owner' || role === 'developer';
  return (
    <>
      <h1>Developers</h1>
      {dev ? <><ApiKeys /><Webhook /></> : <p class="notice">API keys and the webhook are managed by owners and developers.</p>}
      <Deliveries />
    </>
  );
}
