// A payment's page: its figures (spec 2 Payment object: the store, rate, fees, settlement mode,
// metadata among them) and the trail (spec 2 "Payment trail": deposits, unmatched deposits
// when there are any, events, webhook deliveries with redeliver, settlements, ledger, audit), kept
// live from `payment:update`, and the simulation of an outcome for a test payment that is still open.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { href } from '../lib/router.ts';
import { usd, when } from '../lib/format.ts';
import { SettlementState } from '../lib/settlement-state.tsx';
import { ErrorNote, Field, Loading, Section, Status, Table, useAction, useLoad } from '../lib/ui.tsx';

const OUTCOMES = ['confirmed', 'overpaid', 'partially_paid', 'underpaid', 'expired', 'failed', 'wrong_asset', 'paid_late'];

function Simulate({ p, onDone }: { p: Json; onDone: () => void }) {
  const { api } = useApp();
  const [outcome, setOutcome] = useState('confirmed');
  const act = useAction(async () => { await api.post(`/merchant/payments/${p.id}/simulate`, { outcome }); onDone(); });
  const running = p.simulation?.state === 'running';
  return (
    <form class="inline" aria-label="Simulate an outcome" onSubmit={(e) => { e.preventDefault(); void act.run(); }}>
      <Field label="Outcome">{(f) => <select {...f} value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>{OUTCOMES.map((o) => <option key={o} value={o}>{o.replace(/_/g, ' ')}</option>)}</select>}</Field>
      <button type="submit" disabled={act.busy || running}>{running ? 'Simulation running…' : 'Simulate'}</button>
      <ErrorNote error={act.error} />
    </form>
  );
}

function Redeliver({ id, onDone }: { id: string; onDone: () => void }) {
  const { api } = useApp();
  const act = useAction(async () => { await api.post(`/merchant/webhooks/deliveries/${id}/redeliver`); onDone(); });
  return <span><button type="button" class="ghost" disabled={act.busy} onClick={() => { void act.run(); }}>Redeliver</button><ErrorNote error={act.error} /></span>;
}

export default function Payment({ id }: { id?: string }) {
  const ctx = useApp();
  const trail = useLoad(() => ctx.api.get(`/merchant/payments/${encodeURIComponent(id ?? '')}/trail`), [id]);
  // A storefront key's payment carries its store_id: named from the account's stores.
  const stores = useLoad(() => ctx.api.get('/merchant/stores'), []);
  const [live, setLive] = useState<Json | null>(null);
  // The trail shown, for the listeners added on an earlier render.
  const shown = useRef<Json | undefined>(undefined);
  shown.current = trail.data?.trail as Json | undefined;
  useEffect(() => {
    setLive(null);
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The trail (events, settlements, ledger, deliveries) follows a moment later, once per burst.
    const later = () => { clearTimeout(timer); timer = setTimeout(() => trail.reload(), 400); };
    const offs = [
      ctx.live.on('payment:update', (ev: Json) => {
        if (ev.payment?.id !== id) return;
        setLive(ev.payment);
        later();
      }),
      // A settlement changes after its payment (a direct one completes or fails later, spec 6.3
      // `settlement:update`), and a webhook delivery's attempts go on after its event
      // (`webhook:delivery`, which names no payment: matched by the delivery or its event shown here).
      ctx.live.on('settlement:update', (x: Json) => { if (x?.payment_id === id) later(); }),
      ctx.live.on('webhook:delivery', (d: Json) => {
        const t = shown.current;
        if (!t || !d) return;
        if ((t.webhook_deliveries as Json[]).some((x) => x.id === d.id) || (t.events as Json[]).some((e) => e.id === d.event_id)) later();
      }),
    ];
    return () => { offs.forEach((off) => off()); clearTimeout(timer); };
  }, [id]);
  if (!trail.data) return trail.error ? <><h1>Payment</h1><ErrorNote error={trail.error} /><a href={href('/payments')}>Back to payments</a></> : <Loading what="Loading the payment" />;
  const t = trail.data.trail as Json;
  // A live payment is the webhook's form, without the checkout URL (spec 2): kept from the trail.
  const p: Json = live && live.id === t.payment.id ? { checkout_url: t.payment.checkout_url, ...live } : t.payment;
  const dev = ctx.role === 'owner' || ctx.role === 'developer';
  const canSimulate = !p.livemode && ctx.role !== 'viewer' && ['pending', 'partially_paid'].includes(p.status);
  return (
    <>
      <p><a href={href('/payments')}>← Payments</a></p>
      <h1>Payment {p.order_id} <Status value={p.status} /></h1>
      {!p.livemode && <p class="test-banner" role="note">Test payment</p>}
      <Section title="Details">
        <dl class="kv" data-testid="payment-details">
          <dt>Status</dt><dd data-testid="payment-status">{p.status.replace(/_/g, ' ')}</dd>
          <dt>Payment id</dt><dd class="mono">{p.id}</dd>
          <dt>Price</dt><dd>{usd(p.usd_amount)}</dd>
          <dt>Due</dt><dd>{usd(p.amount_due_usd)}{p.token ? ` = ${p.crypto_amount} ${p.token}` : ''}</dd>
          <dt>Received</dt><dd>{p.received_amount ?? '0'} {p.token} ({usd(p.received_usd ?? '0')})</dd>
          <dt>Coin</dt><dd>{p.token ? `${p.token} on ${p.chain}` : 'not chosen yet'}</dd>
          {p.token && p.rate_locked && <><dt>Rate</dt><dd>1 {p.token} = {usd(p.rate_locked)}</dd></>}
          {p.network_fee !== undefined && p.token && <><dt>Network fee</dt><dd>{p.network_fee} {p.token} ({usd(p.network_fee_usd)}){p.network_fee_note ? `: ${p.network_fee_note}` : ''}</dd></>}
          {p.extra_usd && p.extra_usd !== '0' && <><dt>Extra to reach the exchange minimum</dt><dd>{usd(p.extra_usd)}</dd></>}
          {p.price_amount && <><dt>Shown price</dt><dd>{p.price_amount} {p.price_currency}</dd></>}
          <dt>Fees paid by</dt><dd>{p.fees_paid_by_customer ? 'the customer' : 'you'}</dd>
          {p.settlement && <><dt>Settlement</dt><dd>{p.settlement}</dd></>}
          {p.store_id && <><dt>Store</dt><dd>{((stores.data?.stores ?? []) as Json[]).find((s) => s.id === p.store_id)?.name ?? <span class="mono">{p.store_id}</span>}</dd></>}
          <dt>Address</dt><dd class="mono">{p.deposit_address || '—'}{p.destination_tag !== undefined ? ` tag ${p.destination_tag}` : ''}</dd>
          {p.confirmations !== undefined && <><dt>Confirmations</dt><dd>{p.confirmations} of {p.confirmations_required}</dd></>}
          <dt>Created</dt><dd>{when(p.created_at)}</dd>
          <dt>Expires</dt><dd>{when(p.expires_at)}</dd>
          {p.customer_email && <><dt>Customer</dt><dd>{p.customer_email}</dd></>}
          {p.description && <><dt>Description</dt><dd>{p.description}</dd></>}
          {p.metadata && <><dt>Metadata</dt><dd><pre class="mono">{JSON.stringify(p.metadata, null, 2)}</pre></dd></>}
          {p.webhook_url && <><dt>Its webhook URL</dt><dd class="mono">{p.webhook_url}</dd></>}
          {p.checkout_url && <><dt>Checkout</dt><dd><a href={p.checkout_url} target="_blank" rel="noopener">Open the checkout page</a></dd></>}
          {p.simulation && <><dt>Simulation</dt><dd>{p.simulation.outcome} ({p.simulation.state})</dd></>}
        </dl>
      </Section>
      {canSimulate && <Section title="Simulate (test)"><Simulate p={p} onDone={trail.reload} /></Section>}
      <Section title="Deposits">
        <Table caption="Deposits" head={['Transaction', 'Amount', 'Dollars', 'Counted', 'Confirmations', 'Status']}
          rows={(t.deposits as Json[]).map((d) => [<span class="mono">{d.tx_id}</span>, `${d.amount} ${d.token ?? p.token}`, usd(d.usd_value), d.counted ? 'yes' : 'no', `${d.confirmations ?? ''}/${d.confirmations_required ?? ''}`, <Status value={d.status} />])} />
      </Section>
      {(t.unmatched_deposits as Json[]).length > 0 && <Section title="Unmatched deposits">
        <p class="muted">Sent to this payment's address after it could take no more: no payment counted them.</p>
        <Table caption="Unmatched deposits" head={['Seen', 'Transaction', 'Amount', 'Dollars', 'Block']}
          rows={(t.unmatched_deposits as Json[]).map((u) => [when(u.seen_at), <span class="mono">{u.tx_id}</span>, `${u.amount} ${u.token}`, u.usd_value === undefined ? '—' : usd(u.usd_value), u.block ?? '—'])} />
      </Section>}
      <Section title="Events">
        <Table caption="Events" head={['When', 'Event', 'Status']} rows={(t.events as Json[]).map((e) => [when(e.created_at), e.type, e.data?.status ? <Status value={e.data.status} /> : '—'])} />
      </Section>
      <Section title="Webhook deliveries">
        <Table caption="Webhook deliveries" head={['Created', 'Event', 'Status', 'Attempts', 'Last answer', '']}
          rows={(t.webhook_deliveries as Json[]).map((d) => [when(d.created_at), d.event_type, <Status value={d.status} />, `${d.attempts}/${d.max_attempts}`, d.last_status_code ?? d.last_error ?? '—', dev ? <Redeliver id={d.id} onDone={trail.reload} /> : null])} />
      </Section>
      <Section title="Settlements">
        <Table caption="Settlements" head={['Created', 'Mode', 'Coin', 'Amount', 'Fees', 'Net', 'Status', 'Transaction']}
          rows={(t.settlements as Json[]).map(({ settlement: s }) => [when(s.created_at), s.mode, s.token, s.amount, `${s.service_fee} + ${s.network_fee} + ${s.conversion_fee}`, `${s.net} (${usd(s.net_usd)})`, <Status value={s.status} />, <SettlementState s={s} />])} />
      </Section>
      <Section title="Ledger">
        <Table caption="Ledger" head={['When', 'Type', 'Amount', 'Dollars']} rows={(t.ledger as Json[]).map((l) => [when(l.created_at), l.type, `${l.amount} ${l.token}`, usd(l.usd_amount)])} />
      </Section>
      <Section title="Audit">
        <Table caption="Audit" head={['When', 'Action', 'By']} rows={(t.audit as Json[]).map((a) => [when(a.at), a.action, a.actor?.email ?? a.actor?.kind])} />
      </Section>
    </>
  );
}
