// Referral program (owners, finance): the code and link, figures, referrals, commissions and the
// referral balance's payouts (request, cancel while requested). A payout goes to the default USDT
// (Tron) payout address, to another live USDT (Tron) payout address chosen here, or to any Tron
// address typed in, which asks for the password again (spec 4.4, 6: not one of the payout addresses).
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { short, usd, when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Pager, Section, Status, Table, errorFor, useAction, useLoad } from '../lib/ui.tsx';

/** The only coin referral payouts are paid in. */
const REFERRAL_TOKEN = 'USDT_TRC20';
const LIMIT = 50;
/** Referral payout states (spec 2), the list's status filter. */
const PAYOUT_STATUSES = ['requested', 'processing', 'paid', 'rejected', 'canceled'];
/** The `to` choices besides an address id. */
const DEFAULT = '';
const OTHER = 'other';

export default function Referrals() {
  const ctx = useApp();
  const info = useLoad(() => ctx.api.get('/merchant/affiliate'), []);
  const [at, setAt] = useState({ refs: 0, comms: 0, payouts: 0 });
  const [refStatus, setRefStatus] = useState('');
  const refs = useLoad(() => ctx.api.get(`/merchant/affiliate/referrals${qs({ status: refStatus, limit: LIMIT, offset: at.refs })}`), [at.refs, refStatus]);
  const comms = useLoad(() => ctx.api.get(`/merchant/affiliate/commissions${qs({ limit: LIMIT, offset: at.comms })}`), [at.comms]);
  const [payoutStatus, setPayoutStatus] = useState('');
  const payouts = useLoad(() => ctx.api.get(`/merchant/affiliate/payouts${qs({ status: payoutStatus, limit: LIMIT, offset: at.payouts })}`), [at.payouts, payoutStatus]);
  const pager = (k: keyof typeof at, total: number) => <Pager total={total} limit={LIMIT} offset={at[k]} onPage={(o) => setAt({ ...at, [k]: o })} />;
  useEffect(() => {
    const offs = ['affiliate:balance', 'affiliate:payout', 'affiliate:commission', 'affiliate:referral'].map((e) => ctx.live.on(e, () => { info.reload(); refs.reload(); comms.reload(); payouts.reload(); }));
    return () => offs.forEach((o) => o());
  }, [at, refStatus, payoutStatus]);
  // The live payout addresses the API accepts for a referral payout: USDT on Tron.
  const addrs = useLoad(() => ctx.api.get('/merchant/payout-addresses'), []);
  useEffect(() => ctx.live.on('payout_address:update', () => addrs.reload()), []);
  const usable = ((addrs.data?.addresses ?? []) as Json[]).filter((x) => x.token === REFERRAL_TOKEN && x.livemode !== false);
  const [amount, setAmount] = useState('');
  const [to, setTo] = useState(DEFAULT);
  const [other, setOther] = useState({ address: '', password: '' });
  const request = useAction(async () => {
    const body: Json = amount ? { amount } : {};
    if (to === OTHER) Object.assign(body, { address: other.address.trim(), password: other.password });
    else if (to !== DEFAULT) body.address_id = to;
    await ctx.api.post('/merchant/affiliate/payouts', body);
    setAmount('');
    setOther({ address: '', password: '' });
    payouts.reload();
    info.reload();
  });
  const err = { amount: errorFor(request.error, 'amount', 'your referral balance', 'minimum'), address: errorFor(request.error, 'address', 'unknown payout address', 'referral payouts are paid', 'add a USDT'), password: errorFor(request.error, 'password') };
  const fallback = usable.find((x) => x.default) ?? usable[0];
  const cancel = useAction(async (id: string) => { await ctx.api.post(`/merchant/affiliate/payouts/${id}/cancel`); payouts.reload(); info.reload(); });
  if (!info.data) return <><h1>Referral program</h1>{info.error ? <ErrorNote error={info.error} /> : <Loading />}</>;
  const a = info.data;
  return (
    <>
      <h1>Referral program</h1>
      <Section title="Your link">
        <dl class="kv"><dt>Code</dt><dd><code>{a.code}</code></dd><dt>Link</dt><dd><code>{a.link}</code></dd><dt>Share</dt><dd>{a.rate_bps / 100}% of the service's fee</dd>
          <dt>Clicks</dt><dd>{a.clicks}</dd><dt>Referrals</dt><dd>{a.referrals.active} active, {a.referrals.void} void</dd>
          <dt>Balance</dt><dd>{a.balance.available} {a.balance.token} available, {a.balance.pending_payout} held, {a.balance.paid_out} paid out</dd></dl>
      </Section>
      <Section title="Payouts" actions={<label>Status <select value={payoutStatus} onChange={(e) => { setAt({ ...at, payouts: 0 }); setPayoutStatus(e.currentTarget.value); }}><option value="">Any</option>{PAYOUT_STATUSES.map((x) => <option key={x}>{x}</option>)}</select></label>}>
        <form class="inline" aria-label="Request a referral payout" onSubmit={(e) => { e.preventDefault(); void request.run(); }}>
          <Field label="Amount (USDT)" error={err.amount} hint={`Empty: all; at least ${a.payouts.min_payout_usd}`}>{(p) => <input {...p} inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />}</Field>
          <Field label="Pay to" error={to === OTHER ? null : err.address} hint="Your USDT (Tron) payout addresses, or another Tron address">{(p) => (
            <select {...p} value={to} onChange={(e) => setTo(e.currentTarget.value)}>
              <option value={DEFAULT}>{fallback ? `Default: ${fallback.label ? `${fallback.label} ` : ''}${short(fallback.address, 16)}` : 'Default USDT (Tron) address'}</option>
              {usable.map((x) => <option key={x.id} value={x.id}>{x.label ? `${x.label} · ` : ''}{x.address}</option>)}
              <option value={OTHER}>Another Tron address…</option>
            </select>)}</Field>
          {to === OTHER && <>
            <Field label="Tron address" error={err.address}>{(p) => <input {...p} required class="mono" value={other.address} onInput={(e) => setOther({ ...other, address: e.currentTarget.value })} />}</Field>
            <Field label="Your password" error={err.password} hint="Asked again for an address outside your payout addresses">{(p) => <input {...p} type="password" autocomplete="current-password" value={other.password} onInput={(e) => setOther({ ...other, password: e.currentTarget.value })} />}</Field>
          </>}
          <button type="submit" disabled={request.busy}>Request payout</button>
          {!err.amount && !err.address && !err.password && <ErrorNote error={request.error} />}
        </form>
        <ErrorNote error={cancel.error} />
        {payouts.data ? <><Table caption="Referral payouts" head={['Requested', 'Amount', 'To', 'Sent', 'Status', 'Due', '']} empty={payoutStatus ? `No ${payoutStatus} payout.` : 'No payout yet.'}
          rows={(payouts.data.payouts as Json[]).map((p) => [when(p.created_at), p.amount, <span class="mono">{p.address}</span>, p.send_amount, <Status value={p.status} />, when(p.due_at), p.status === 'requested' ? <button type="button" class="ghost" onClick={() => { void cancel.run(p.id); }}>Cancel</button> : p.tx_id ?? p.note ?? ''])} />{pager('payouts', payouts.data.total)}</> : <Loading />}
      </Section>
      <Section title="Referrals" actions={<label>Status <select value={refStatus} onChange={(e) => { setAt({ ...at, refs: 0 }); setRefStatus(e.currentTarget.value); }}><option value="">Any</option><option>active</option><option>void</option></select></label>}>
        {refs.data ? <><Table caption="Referrals" head={['Merchant', 'Signed up', 'Status', 'Volume', 'Earned']} empty={refStatus ? `No ${refStatus} referral.` : 'No referral yet.'}
          rows={(refs.data.referrals as Json[]).map((r) => [r.merchant_name, when(r.signed_up_at), <Status value={r.status} />, usd(r.volume_usd), usd(r.earned_usd)])} />{pager('refs', refs.data.total)}</> : <Loading />}
      </Section>
      <Section title="Commissions">
        {comms.data ? <><Table caption="Commissions" head={['When', 'Merchant', 'Fee', 'Commission']} empty="No commission yet."
          rows={(comms.data.commissions as Json[]).map((c) => [when(c.created_at), c.merchant_name, usd(c.fee_usd), `${c.amount} ${c.token}`])} />{pager('comms', comms.data.total)}</> : <Loading />}
      </Section>
    </>
  );
}
