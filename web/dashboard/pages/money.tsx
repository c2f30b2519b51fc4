// Money: balances (live from `balance:update`), the ledger with its CSV statement, settlements,
// payout addresses (added, edited, deleted; the password asked again for a new address or tag, the
// 24-hour activation shown) and payouts (live only: quote, request, cancel), for owners and
// finance; every role reads.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { download } from '../lib/csv.ts';
import { usd, when } from '../lib/format.ts';
import { SettlementState } from '../lib/settlement-state.tsx';
import { ErrorNote, Field, Loading, Pager, Section, Status, Table, errorFor, useAction, useLoad, usePaged } from '../lib/ui.tsx';

const SETTLEMENT_STATUSES = ['pending', 'completed', 'held', 'failed'];
const TOKENS = ['USDT_TRC20', 'TRX', 'ETH', 'USDT_ERC20', 'USDC_ERC20', 'BNB', 'USDT_BEP20', 'USDC_BEP20', 'BTC', 'LTC', 'DOGE', 'XRP'];

function Balances() {
  const ctx = useApp();
  const b = useLoad(() => ctx.api.get(withMode('/merchant/balances', ctx)), [ctx.test]);
  useEffect(() => ctx.live.on('balance:update', (x: Json) => { if (x.livemode === !ctx.test) b.set({ balances: x.balances }); }), [ctx.test]);
  return (
    <Section title="Balances">
      {b.data ? <Table caption="Balances" head={['Coin', 'Chain', 'Available', 'Held for payouts']} empty="No balance: direct settlements go straight to your wallets."
        rows={(b.data.balances as Json[]).map((x) => [x.token, x.chain, x.available, x.pending_payout])} /> : b.error ? <ErrorNote error={b.error} /> : <Loading />}
    </Section>
  );
}

function Ledger() {
  const ctx = useApp();
  const [offset, setOffset] = useState(0);
  const [token, setToken] = useState('');
  const l = useLoad(() => ctx.api.get(withMode(`/merchant/ledger${qs({ token, limit: 50, offset })}`, ctx)), [ctx.test, token, offset]);
  const csv = useAction(async () => {
    const res = await ctx.api.raw('GET', withMode(`/merchant/ledger.csv${qs({ token })}`, ctx));
    download(`ledger-${ctx.test ? 'test' : 'live'}.csv`, await res.blob());
  });
  return (
    <Section title="Ledger" actions={<span class="row">
      <label>Coin <select value={token} onChange={(e) => { setOffset(0); setToken(e.currentTarget.value); }}><option value="">All</option>{TOKENS.map((t) => <option key={t}>{t}</option>)}</select></label>
      <button type="button" class="ghost" disabled={csv.busy} onClick={() => { void csv.run(); }}>Download statement (CSV)</button></span>}>
      <ErrorNote error={csv.error} />
      {l.data ? <><Table caption="Ledger" head={['When', 'Type', 'Amount', 'Dollars', 'Reference', 'Note']} empty="No entry yet."
        rows={(l.data.entries as Json[]).map((e) => [when(e.created_at), e.type.replace(/_/g, ' '), `${e.amount} ${e.token}`, usd(e.usd_amount), <span class="mono">{e.reference}</span>, e.note ?? ''])} />
        <Pager total={l.data.total} limit={50} offset={offset} onPage={setOffset} /></> : l.error ? <ErrorNote error={l.error} /> : <Loading />}
    </Section>
  );
}

function Settlements() {
  const ctx = useApp();
  const [offset, setOffset] = useState(0);
  // The route's filters (spec 4.4): status, and where the money went (direct: the merchant's wallet).
  const [status, setStatus] = useState('');
  const [mode, setMode] = useState('');
  const s = useLoad(() => ctx.api.get(withMode(`/merchant/settlements${qs({ status, settlement: mode, limit: 50, offset })}`, ctx)), [ctx.test, status, mode, offset]);
  useEffect(() => ctx.live.on('settlement:update', (x: Json) => { if (x.livemode === !ctx.test) s.reload(); }), [ctx.test]);
  return (
    <Section title="Settlements" actions={<span class="row">
      <label>Status <select value={status} onChange={(e) => { setOffset(0); setStatus(e.currentTarget.value); }}><option value="">Any</option>{SETTLEMENT_STATUSES.map((x) => <option key={x}>{x}</option>)}</select></label>
      <label>Went to <select value={mode} onChange={(e) => { setOffset(0); setMode(e.currentTarget.value); }}><option value="">Anywhere</option><option value="direct">Your wallet (direct)</option><option value="custodial">Your balance (custodial)</option></select></label></span>}>
      {s.data ? <><Table caption="Settlements" head={['Created', 'Payment', 'Mode', 'Coin', 'Amount', 'Net', 'Status', 'Transaction']} empty="No settlement yet."
        rows={(s.data.settlements as Json[]).map((x) => [when(x.created_at), <a href={`/payments/${x.payment_id}${ctx.test ? '?mode=test' : ''}`}>payment</a>, x.mode, x.token, x.amount, `${x.net} (${usd(x.net_usd)})`, <Status value={x.status} />, <SettlementState s={x} />])} />
        <Pager total={s.data.total} limit={50} offset={offset} onPage={setOffset} /></> : s.error ? <ErrorNote error={s.error} /> : <Loading />}
    </Section>
  );
}

/**
 * The edit form of one payout address (spec 4.4 PATCH): its label, address and, for XRP, tag; only
 * the changed fields are sent. A new address or tag asks for the password again (spec 5), a label
 * does not; a live address moved is used 24 hours later and its requested payouts are canceled.
 */
function EditAddress({ address: x, onDone }: { address: Json; onDone: () => void }) {
  const ctx = useApp();
  const savedTag = x.tag === undefined ? '' : String(x.tag);
  const [f, setF] = useState({ address: x.address as string, tag: savedTag, label: (x.label ?? '') as string, password: '' });
  const addressChanged = f.address.trim() !== x.address;
  const tagChanged = x.token === 'XRP' && f.tag !== savedTag;
  const moves = addressChanged || tagChanged;
  const save = useAction(async () => {
    const body: Json = {};
    if (f.label !== (x.label ?? '')) body.label = f.label;
    if (addressChanged) body.address = f.address.trim();
    if (tagChanged) body.tag = f.tag === '' ? null : Number(f.tag);
    if (moves) body.password = f.password;
    if (Object.keys(body).length > 0) await ctx.api.patch(`/merchant/payout-addresses/${x.id}`, body);
    onDone();
  });
  const passwordErr = errorFor(save.error, 'password');
  return (
    <form aria-label="Edit payout address" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
      <h3>Edit the {x.token} address {x.label || x.address}</h3>
      <p class="muted">A new address or tag asks for your password again; in live mode it is used 24 hours later, and payouts still requested to this address are canceled. The team is told of every change.</p>
      <div class="row">
        <Field label="Address">{(p) => <input {...p} required class="mono" value={f.address} onInput={(e) => setF({ ...f, address: e.currentTarget.value })} />}</Field>
        {x.token === 'XRP' && <Field label="Destination tag">{(p) => <input {...p} inputMode="numeric" value={f.tag} onInput={(e) => setF({ ...f, tag: e.currentTarget.value })} />}</Field>}
        <Field label="Label">{(p) => <input {...p} value={f.label} onInput={(e) => setF({ ...f, label: e.currentTarget.value })} />}</Field>
        <Field label="Your password" error={passwordErr} hint="Only when the address or tag changes">{(p) => <input {...p} type="password" autocomplete="current-password" required={moves} value={f.password} onInput={(e) => setF({ ...f, password: e.currentTarget.value })} />}</Field>
        <button type="submit" disabled={save.busy}>Save address</button>
        <button type="button" class="ghost" onClick={onDone}>Cancel</button>
      </div>
      {!passwordErr && <ErrorNote error={save.error} />}
    </form>
  );
}

function Addresses({ onChange }: { onChange: () => void }) {
  const ctx = useApp();
  const a = useLoad(() => ctx.api.get(withMode('/merchant/payout-addresses', ctx)), [ctx.test]);
  const [f, setF] = useState({ token: 'USDT_TRC20', address: '', tag: '', label: '', password: '' });
  const [editing, setEditing] = useState<Json | null>(null);
  const canEdit = ctx.role === 'owner' || ctx.role === 'finance';
  useEffect(() => ctx.live.on('payout_address:update', () => a.reload()), [ctx.test]);
  const add = useAction(async () => {
    const body: Json = { token: f.token, address: f.address.trim(), password: f.password };
    if (f.label) body.label = f.label;
    if (f.tag) body.tag = Number(f.tag);
    await ctx.api.post(withMode('/merchant/payout-addresses', ctx), body);
    setF({ ...f, address: '', tag: '', label: '', password: '' });
    a.reload();
    onChange();
  });
  const del = useAction(async (id: string) => { await ctx.api.del(`/merchant/payout-addresses/${id}`); a.reload(); onChange(); });
  const makeDefault = useAction(async (id: string) => { await ctx.api.patch(`/merchant/payout-addresses/${id}`, { default: true }); a.reload(); });
  const page = usePaged<Json>(a.data?.addresses, 'Payout addresses');
  const now = Date.now();
  return (
    <Section title={`Payout addresses (${ctx.test ? 'test' : 'live'})`}>
      {a.data ? <><Table caption="Payout addresses" head={['Coin', 'Address', 'Label', 'Default', 'In use', '']} empty="No payout address yet."
        rows={page.shown.map((x) => [x.token, <span class="mono">{x.address}{x.tag !== undefined ? ` tag ${x.tag}` : ''}</span>, x.label ?? '', x.default ? 'yes' : canEdit ? <button type="button" class="ghost" onClick={() => { void makeDefault.run(x.id); }}>Make default</button> : 'no',
          Date.parse(x.active_at) <= now ? 'yes' : <span class="badge s-pending">from {when(x.active_at)}</span>,
          canEdit ? <span class="row">
            <button type="button" class="ghost" aria-label={`Edit ${x.label || x.address}`} onClick={() => setEditing(x)}>Edit</button>
            <button type="button" class="ghost" onClick={() => { if (confirm('Delete this payout address?')) void del.run(x.id); }}>Delete</button></span> : null])} />{page.pager}</> : a.error ? <ErrorNote error={a.error} /> : <Loading />}
      <ErrorNote error={del.error ?? makeDefault.error} />
      {canEdit && editing && <EditAddress key={editing.id} address={editing} onDone={() => { setEditing(null); a.reload(); onChange(); }} />}
      {canEdit && (
        <form aria-label="Add a payout address" onSubmit={(e) => { e.preventDefault(); void add.run(); }}>
          <h3>Add an address</h3>
          <p class="muted">A new address of a coin that already has one, in live mode, is used 24 hours after it is added; the team is told of every change.</p>
          <div class="row">
            <Field label="Coin">{(p) => <select {...p} value={f.token} onChange={(e) => setF({ ...f, token: e.currentTarget.value })}>{TOKENS.map((t) => <option key={t}>{t}</option>)}</select>}</Field>
            <Field label="Address">{(p) => <input {...p} required value={f.address} onInput={(e) => setF({ ...f, address: e.currentTarget.value })} />}</Field>
            {f.token === 'XRP' && <Field label="Destination tag">{(p) => <input {...p} inputMode="numeric" value={f.tag} onInput={(e) => setF({ ...f, tag: e.currentTarget.value })} />}</Field>}
            <Field label="Label">{(p) => <input {...p} value={f.label} onInput={(e) => setF({ ...f, label: e.currentTarget.value })} />}</Field>
            <Field label="Your password" hint="Asked again for every new address">{(p) => <input {...p} type="password" autocomplete="current-password" required value={f.password} onInput={(e) => setF({ ...f, password: e.currentTarget.value })} />}</Field>
            <button type="submit" disabled={add.busy}>Add address</button>
          </div>
          <ErrorNote error={add.error} />
        </form>
      )}
    </Section>
  );
}

/**
 * A payout quote in words: the balance it draws on, the amount, the network fee and what is sent
 * (coins with their symbol, dollars to the cent), the smallest payout. Without an amount the quote
 * has no amount, sent figures or rate: those lines are left out.
 */
function QuoteFigures({ q }: { q: Json }) {
  const coins = (v: unknown, token: unknown, dollars: unknown) => (v === undefined ? null : `${v} ${token} (${usd(dollars)})`);
  const lines: [string, string | null][] = [
    ['Drawn from', `${q.from_token} on ${q.from_chain}, ${q.available} ${q.from_token} available`],
    ['Amount', coins(q.amount, q.from_token, q.amount_usd)],
    ['Network fee', coins(q.network_fee, q.from_token, q.network_fee_usd)],
    ['Sent to the address', q.send_amount === undefined ? null : `${coins(q.send_amount, q.token, q.send_amount_usd)} on ${q.chain}`],
    ['Rate', q.usd_rate === undefined ? null : `1 ${q.from_token} = ${usd(q.usd_rate)}`],
    ['Smallest payout', usd(q.min_payout_usd)],
  ];
  return <dl class="kv" aria-label="Quote">{lines.filter(([, v]) => v !== null).flatMap(([k, v]) => [<dt key={`${k}-k`}>{k}</dt>, <dd key={`${k}-v`}>{v}</dd>])}</dl>;
}

/**
 * The live balances a payout to an address of `token` may draw on (spec 1 "Payouts"): a USDT
 * balance can go to any USDT address, other coins only to their own; only balances with something
 * available are offered.
 */
export function payableBalances(token: string, balances: Json[]): Json[] {
  const usdt = (t: string) => t.startsWith('USDT_');
  return balances.filter((b) => (usdt(token) ? usdt(b.token) : b.token === token) && /[1-9]/.test(String(b.available)));
}

function Payouts({ version }: { version: number }) {
  const ctx = useApp();
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(`/merchant/payouts${qs({ limit: 50, offset })}`), [offset]);
  const addrs = useLoad(() => ctx.api.get('/merchant/payout-addresses'), [version]);
  const balances = useLoad(() => ctx.api.get('/merchant/balances'), []);
  const [f, setF] = useState({ address_id: '', amount: '', from_token: '' });
  const [quote, setQuote] = useState<Json | null>(null);
  const canPay = ctx.role === 'owner' || ctx.role === 'finance';
  useEffect(() => ctx.live.on('payout:update', () => list.reload()), []);
  // An address a teammate (or another tab) adds, changes or deletes: `version` counts this tab's only.
  useEffect(() => ctx.live.on('payout_address:update', () => addrs.reload()), []);
  useEffect(() => ctx.live.on('balance:update', (x: Json) => { if (x.livemode) balances.set({ balances: x.balances }); }), []);
  // Only a USDT address can be paid from another balance than its own coin's: the choice is shown
  // for those. Left at "Default", the API picks (the address's own balance, or the fullest USDT
  // balance when that one is empty) and the quote says which.
  const to = (addrs.data?.addresses as Json[] | undefined)?.find((x) => x.id === f.address_id);
  const toUsdt = Boolean(to?.token.startsWith('USDT_'));
  const fromChoices = toUsdt ? payableBalances(to!.token, balances.data?.balances ?? []) : [];
  const from = fromChoices.some((b) => b.token === f.from_token) ? f.from_token : undefined;
  const getQuote = useAction(async () => { setQuote((await ctx.api.get(`/merchant/payouts/quote${qs({ address_id: f.address_id, amount: f.amount, from_token: from })}`)).quote); });
  const request = useAction(async () => { await ctx.api.post('/merchant/payouts', { address_id: f.address_id, amount: f.amount || undefined, from_token: from }); setQuote(null); list.reload(); });
  const cancel = useAction(async (id: string) => { await ctx.api.post(`/merchant/payouts/${id}/cancel`); list.reload(); });
  // requested_by (spec 2): a member's id, `scheduler` or `auto`. Owners may list the team and see
  // the member's e-mail; other roles see "a teammate".
  const team = useLoad(async () => (ctx.role === 'owner' ? ctx.api.get('/merchant/users') : { users: [] }), []);
  const requester = (by: string): string => (by === ctx.user.id ? 'you' : by === 'scheduler' ? 'the payout schedule' : by === 'auto' ? 'the service (balance paid out by itself)'
    : ((team.data?.users ?? []) as Json[]).find((u) => u.id === by)?.email ?? 'a teammate');
  return (
    <Section title="Payouts (live)">
      {canPay && (
        <form class="inline" aria-label="Request a payout" onSubmit={(e) => { e.preventDefault(); void request.run(); }}>
          <Field label="To address">{(p) => <select {...p} value={f.address_id} onChange={(e) => { setQuote(null); setF({ ...f, address_id: e.currentTarget.value, from_token: '' }); }}><option value="">Choose…</option>{(addrs.data?.addresses ?? []).map((x: Json) => <option key={x.id} value={x.id}>{x.token} {x.label || x.address.slice(0, 10)}</option>)}</select>}</Field>
          {to && toUsdt && (
            <Field label="From balance" hint="A USDT balance can go to any USDT address">{(p) => <select {...p} value={from ?? ''} onChange={(e) => { setQuote(null); setF({ ...f, from_token: e.currentTarget.value }); }}>
              <option value="">Default: {to.token}, or the fullest USDT balance when it is empty</option>
              {fromChoices.map((b) => <option key={b.token} value={b.token}>{b.token} on {b.chain}: {b.available} available</option>)}
            </select>}</Field>
          )}
          <Field label="Amount" hint="Empty: the whole balance">{(p) => <input {...p} inputMode="decimal" value={f.amount} onInput={(e) => { setQuote(null); setF({ ...f, amount: e.currentTarget.value }); }} />}</Field>
          <button type="button" class="ghost" disabled={!f.address_id || getQuote.busy} onClick={() => { void getQuote.run(); }}>Quote</button>
          <button type="submit" disabled={!f.address_id || request.busy}>Request payout</button>
        </form>
      )}
      {quote && <QuoteFigures q={quote} />}
      <ErrorNote error={getQuote.error ?? request.error ?? cancel.error} />
      {list.data ? <><Table caption="Payouts" head={['Requested', 'To', 'Amount', 'Requested by', 'Fee', 'Sent', 'Status', '']} empty="No payout yet."
        rows={(list.data.payouts as Json[]).map((x) => [when(x.created_at), x.token, `${x.amount} ${x.from_token}`, requester(x.requested_by), `${x.network_fee} ${x.from_token}`, `${x.send_amount} ${x.from_token}`, <Status value={x.status} />,
          canPay && x.status === 'requested' ? <button type="button" class="ghost" onClick={() => { void cancel.run(x.id); }}>Cancel</button> : x.tx_id ? <span class="mono">{x.tx_id}</span> : x.review_note ?? ''])} />
        <Pager total={list.data.total} limit={50} offset={offset} onPage={setOffset} /></> : list.error ? <ErrorNote error={list.error} /> : <Loading />}
    </Section>
  );
}

export default function Money() {
  const ctx = useApp();
  const [version, setVersion] = useState(0);
  return (
    <>
      <h1>Money</h1>
      <Balances />
      <Addresses onChange={() => setVersion(version + 1)} />
      {!ctx.test && <Payouts version={version} />}
      <Settlements />
      <Ledger />
    </>
  );
}
