// Referral program (owners, finance): the code and link, figures, referrals, commissions and the
// referral balance's payouts (request to the default USDT (Tron) address, cancel while requested).
import { useEffect, useState } from 'preact/hooks';
import type { Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Section, Status, Table, useAction, useLoad } from '../lib/ui.tsx';

export default function Referrals() {
  const ctx = useApp();
  const info = useLoad(() => ctx.api.get('/merchant/affiliate'), []);
  const refs = useLoad(() => ctx.api.get('/merchant/affiliate/referrals?limit=50'), []);
  const comms = useLoad(() => ctx.api.get('/merchant/affiliate/commissions?limit=50'), []);
  const payouts = useLoad(() => ctx.api.get('/merchant/affiliate/payouts?limit=50'), []);
  useEffect(() => {
    const offs = ['affiliate:balance', 'affiliate:payout', 'affiliate:commission', 'affiliate:referral'].map((e) => ctx.live.on(e, () => { info.reload(); refs.reload(); comms.reload(); payouts.reload(); }));
    return () => offs.forEach((o) => o());
  }, []);
  const [amount, setAmount] = useState('');
  const request = useAction(async () => { await ctx.api.post('/merchant/affiliate/payouts', amount ? { amount } : {}); setAmount(''); payouts.reload(); info.reload(); });
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
      <Section title="Payouts">
        <form class="inline" aria-label="Request a referral payout" onSubmit={(e) => { e.preventDefault(); void request.run(); }}>
          <Field label="Amount (USDT)" hint={`Empty: all; at least ${a.payouts.min_payout_usd}`}>{(p) => <input {...p} inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />}</Field>
          <button type="submit" disabled={request.busy}>Request payout</button>
          <ErrorNote error={request.error} />
        </form>
        <ErrorNote error={cancel.error} />
        {payouts.data ? <Table caption="Referral payouts" head={['Requested', 'Amount', 'Sent', 'Status', 'Due', '']} empty="No payout yet."
          rows={(payouts.data.payouts as Json[]).map((p) => [when(p.created_at), p.amount, p.send_amount, <Status value={p.status} />, when(p.due_at), p.status === 'requested' ? <button type="button" class="ghost" onClick={() => { void cancel.run(p.id); }}>Cancel</button> : p.tx_id ?? p.note ?? ''])} /> : <Loading />}
      </Section>
      <Section title="Referrals">
        {refs.data ? <Table caption="Referrals" head={['Merchant', 'Signed up', 'Status', 'Volume', 'Earned']} empty="No referral yet."
          rows={(refs.data.referrals as Json[]).map((r) => [r.merchant_name, when(r.signed_up_at), <Status value={r.status} />, `$${r.volume_usd}`, `$${r.earned_usd}`])} /> : <Loading />}
      </Section>
      <Section title="Commissions">
        {comms.data ? <Table caption="Commissions" head={['When', 'Merchant', 'Fee', 'Commission']} empty="No commission yet."
          rows={(comms.data.commissions as Json[]).map((c) => [when(c.created_at), c.merchant_name, `$${c.fee_usd}`, `${c.amount} ${c.token}`])} /> : <Loading />}
      </Section>
    </>
  );
}
