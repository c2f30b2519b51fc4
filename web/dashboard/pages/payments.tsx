// Payments: the list route's filters (status, coin, chain, store, days, a search and an exact order id),
// 50 rows a page, rows kept live from `payment:update` (a changed row in place, a new one on top
// of the first unfiltered page), CSV of the rows shown, and a test payment made here.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { download, toCsv } from '../lib/csv.ts';
import { href, navigate } from '../lib/router.ts';
import { short, usd, when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Pager, Section, Status, Table, useAction, useLoad } from '../lib/ui.tsx';

const STATUSES = ['pending', 'partially_paid', 'detecting', 'confirmed', 'underpaid', 'expired', 'failed'];
const TOKENS = ['USDT_TRC20', 'TRX', 'ETH', 'USDT_ERC20', 'USDC_ERC20', 'BNB', 'USDT_BEP20', 'USDC_BEP20', 'BTC', 'LTC', 'DOGE', 'XRP'];
const CHAINS = ['tron', 'ethereum', 'bsc', 'bitcoin', 'litecoin', 'dogecoin', 'xrp'];
const LIMIT = 50;
const CSV_COLUMNS = ['id', 'created_at', 'order_id', 'status', 'token', 'chain', 'usd_amount', 'amount_due_usd', 'received_usd', 'crypto_amount', 'received_amount', 'customer_email', 'deposit_address', 'livemode'];

interface Filters { status: string; token: string; chain: string; store_id: string; from: string; to: string; q: string; order_id: string }
const EMPTY: Filters = { status: '', token: '', chain: '', store_id: '', from: '', to: '', q: '', order_id: '' };

function NewTestPayment({ onMade }: { onMade: (p: Json) => void }) {
  const { api } = useApp();
  const [f, setF] = useState({ order_id: '', amount_usd: '25', token: 'USDT_TRC20' });
  const act = useAction(async () => {
    const body: Json = { order_id: f.order_id || `test-${Date.now()}`, amount_usd: f.amount_usd };
    if (f.token) body.token = f.token;
    onMade(await api.post('/merchant/payments?mode=test', body));
  });
  return (
    <form class="inline" aria-label="New test payment" onSubmit={(e) => { e.preventDefault(); void act.run(); }}>
      <Field label="Order id" hint="Made up when empty">{(p) => <input {...p} value={f.order_id} onInput={(e) => setF({ ...f, order_id: e.currentTarget.value })} />}</Field>
      <Field label="Amount (USD)">{(p) => <input {...p} inputMode="decimal" value={f.amount_usd} onInput={(e) => setF({ ...f, amount_usd: e.currentTarget.value })} />}</Field>
      <Field label="Coin">{(p) => <select {...p} value={f.token} onChange={(e) => setF({ ...f, token: e.currentTarget.value })}><option value="">Customer chooses</option>{TOKENS.map((t) => <option key={t}>{t}</option>)}</select>}</Field>
      <button type="submit" disabled={act.busy}>Create test payment</button>
      <ErrorNote error={act.error} />
    </form>
  );
}

export default function Payments() {
  const ctx = useApp();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/payments${qs({ ...filters, limit: LIMIT, offset })}`, ctx)), [ctx.test, filters, offset]);
  const unfiltered = Object.values(filters).every((v) => v === '');
  // The account's stores, for the store filter (spec 4.4: the /v1/payments filters, store_id among them).
  const stores = useLoad(() => ctx.api.get('/merchant/stores'), []);
  useEffect(() => ctx.live.on('store:update', () => stores.reload()), []);
  const storeList: Json[] = stores.data?.stores ?? [];
  useEffect(() => ctx.live.on('payment:update', (ev: Json) => {
    const p = ev.payment as Json;
    if (!p || p.livemode === ctx.test) return;
    if (list.data) updateRows(list.data, p, ev.type === 'payment.created' && offset === 0 && unfiltered, list.set);
  }), [ctx.test, list.data, offset, unfiltered]);
  const set = (k: keyof Filters) => (e: Event) => setDraft({ ...draft, [k]: (e.currentTarget as HTMLInputElement).value });
  const rows: Json[] = list.data?.payments ?? [];
  const canMake = ctx.test && ctx.role !== 'viewer';
  return (
    <>
      <h1>Payments</h1>
      {canMake && <Section title="New test payment"><NewTestPayment onMade={(p) => navigate(`/payments/${p.id}`)} /></Section>}
      <Section title="Find payments">
        <form class="inline" aria-label="Filters" onSubmit={(e) => { e.preventDefault(); setOffset(0); setFilters({ ...draft }); }}>
          <Field label="Search" hint="Order id, payment id, email or address">{(p) => <input {...p} type="search" value={draft.q} onInput={set('q')} />}</Field>
          <Field label="Order id (exact)">{(p) => <input {...p} value={draft.order_id} onInput={set('order_id')} />}</Field>
          <Field label="Status">{(p) => <select {...p} value={draft.status} onChange={set('status')}><option value="">Any</option>{STATUSES.map((s) => <option key={s} value={s}>{s.replace(/_/g, ' ')}</option>)}</select>}</Field>
          <Field label="Coin">{(p) => <select {...p} value={draft.token} onChange={set('token')}><option value="">Any</option>{TOKENS.map((t) => <option key={t}>{t}</option>)}</select>}</Field>
          <Field label="Chain">{(p) => <select {...p} value={draft.chain} onChange={set('chain')}><option value="">Any</option>{CHAINS.map((c) => <option key={c}>{c}</option>)}</select>}</Field>
          {storeList.length > 0 && <Field label="Store">{(p) => <select {...p} value={draft.store_id} onChange={set('store_id')}><option value="">Any</option>{storeList.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}</select>}</Field>}
          <Field label="From (UTC day)">{(p) => <input {...p} type="date" value={draft.from} onInput={set('from')} />}</Field>
          <Field label="To (UTC day)">{(p) => <input {...p} type="date" value={draft.to} onInput={set('to')} />}</Field>
          <button type="submit">Apply</button>
          <button type="button" class="ghost" onClick={() => { setDraft(EMPTY); setOffset(0); setFilters(EMPTY); }}>Clear</button>
        </form>
        <ErrorNote error={list.error} />
      </Section>
      <Section title="Results" actions={<button type="button" class="ghost" disabled={rows.length === 0} onClick={() => download(`payments-${ctx.test ? 'test' : 'live'}-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(CSV_COLUMNS, rows))}>Export shown rows (CSV)</button>}>
        {!list.data ? (list.error ? null : <Loading what="Loading payments" />) : (
          <>
            <Table caption="Payments" head={['Created', 'Order', 'Status', 'Amount', 'Coin', 'Received', 'Payment']} empty="No payment matches."
              rows={rows.map((p) => [when(p.created_at), p.order_id, <Status value={p.status} />, usd(p.usd_amount), p.token || '—',
                p.received_amount && p.received_amount !== '0' ? `${p.received_amount} ${p.token}` : '—', <a href={href(`/payments/${p.id}`)}>{short(p.id, 16)}</a>])} />
            <Pager total={list.data.total} limit={LIMIT} offset={offset} onPage={setOffset} />
          </>
        )}
        {list.loading && list.data && <p class="muted" role="status">Updating…</p>}
      </Section>
    </>
  );
}

/** A live payment into the shown page: replaced where shown; new on top when it is the first, unfiltered page. */
function updateRows(data: Json, p: Json, prepend: boolean, set: (d: Json) => void): void {
  const rows = data.payments as Json[];
  const i = rows.findIndex((r) => r.id === p.id);
  if (i >= 0) set({ ...data, payments: rows.map((r, j) => (j === i ? p : r)) });
  else if (prepend) set({ ...data, payments: [p, ...rows].slice(0, data.limit), total: data.total + 1 });
}
