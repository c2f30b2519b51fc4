// Overview: the dashboard figures, live from `dashboard:update` (filtered on livemode), the volume
// chart by day and chain, and the setup checklist (key used, webhook, payout address, live mode)
// with the owner's live-mode switch behind a confirmation.
import { useEffect, useRef, useState } from 'preact/hooks';
import { withMode, useApp } from '../lib/context.ts';
import { href } from '../lib/router.ts';
import { usd } from '../lib/format.ts';
import { ErrorNote, Loading, Section, useAction, useLoad } from '../lib/ui.tsx';
import type { Json } from '../lib/api.ts';
import { VolumeChart } from './volume-chart.tsx';
import { onEachUtcDay } from '../lib/day-change.ts';

function Figures({ f }: { f: Json }) {
  const items: [string, string | number][] = [
    ['Confirmed today', f.confirmed_today], ['Volume today', usd(f.volume_usd_today)], ['Open payments', f.pending],
    ['Expired today', f.expired_today], ['Failed webhooks', f.failed_webhooks],
    ...([['Last 7 days', 'last_7_days'], ['Last 30 days', 'last_30_days'], ['All time', 'all_time']] as const)
      .map(([k, p]): [string, string] => [k, `${usd(f.periods[p].volume_usd)} (${f.periods[p].confirmed} confirmed)`]),
  ];
  return <dl class="figures" aria-label="Figures" data-testid="figures">{items.map(([k, v]) => <div class="figure" key={k}><dt>{k}</dt><dd>{v}</dd></div>)}</dl>;
}

function Checklist() {
  const ctx = useApp();
  const { api, role, merchant } = ctx;
  const dev = role === 'owner' || role === 'developer';
  const state = useLoad(async () => {
    const [keys, hook, addrs] = await Promise.all([
      dev ? api.get(withMode('/merchant/api-keys', ctx)) : null,
      dev ? api.get(withMode('/merchant/webhook', ctx)) : null,
      api.get(withMode('/merchant/payout-addresses', ctx)),
    ]);
    return { keys: keys?.api_keys as Json[] | undefined, hook: hook?.webhook as Json | undefined, addrs: addrs.addresses as Json[] };
  }, [ctx.test]);
  // Its items change with a teammate's (or another tab's) webhook, payout address or key, and a key
  // is first used by a payment (dashboard:update): the list follows them without a reload. A busy
  // account's payments stop asking once a key is seen used.
  const keyUsed = useRef(false);
  keyUsed.current = Boolean(state.data?.keys?.some((k) => k.last_used_at && !k.revoked_at));
  useEffect(() => {
    const offs = ['webhook:update', 'payout_address:update', 'api_key:update', 'dashboard:update'].map((event) => ctx.live.on(event, (x: Json) => {
      if (event === 'dashboard:update' && (keyUsed.current || !dev)) return;
      if (x?.livemode === undefined || x.livemode === !ctx.test) state.reload();
    }));
    return () => { for (const off of offs) off(); };
  }, [ctx.test]);
  const [confirming, setConfirming] = useState(false);
  const live = useAction(async (enabled: boolean) => {
    const r = await api.post('/merchant/live', { enabled });
    ctx.session.setMerchant(r.merchant);
    setConfirming(false);
  });
  if (!state.data) return state.error ? <ErrorNote error={state.error} /> : <Loading />;
  const d = state.data;
  // `unknown`: the role cannot read whether it is done; `who`: the role can read it but not do it
  // (the link would lead to a page without the form), so the item says who does.
  const item = (done: boolean | undefined, text: string, link: string, unknown = false, who?: string) => (
    <li class={done ? 'done' : 'todo'}>{text}{unknown ? <span class="muted"> (a developer or owner can check)</span> : !done && (who ? <span class="muted"> ({who})</span> : <a href={href(link)}>Set it up</a>)}</li>
  );
  // spec 4.4: payout addresses are added by the owner and finance
  const addsAddresses = role === 'owner' || role === 'finance';
  return (
    <ul class="checklist" aria-label="Setup checklist">
      {item(d.keys?.some((k) => k.last_used_at && !k.revoked_at), 'An API key has been used', '/developers', !dev)}
      {item(d.hook ? Boolean(d.hook.url) : undefined, 'Webhook URL set', '/developers', !dev)}
      {item(d.addrs.length > 0, 'Payout address added', '/money', false, addsAddresses ? undefined : 'an owner or finance member adds one')}
      <li class={merchant.live_enabled ? 'done' : 'todo'}>
        Live mode {merchant.live_enabled ? 'on' : 'off'}
        {role === 'owner' && !confirming && <button type="button" class="ghost" onClick={() => setConfirming(true)}>{merchant.live_enabled ? 'Turn live mode off' : 'Turn live mode on'}</button>}
        {role === 'owner' && confirming && (
          <span class="row" role="group" aria-label="Confirm live mode">
            <span>{merchant.live_enabled ? 'Stop new live payments? Open ones still complete.' : 'Accept real payments with your live keys?'}</span>
            <button type="button" disabled={live.busy} onClick={() => { void live.run(!merchant.live_enabled); }}>Yes, turn it {merchant.live_enabled ? 'off' : 'on'}</button>
            <button type="button" class="ghost" onClick={() => setConfirming(false)}>Cancel</button>
          </span>
        )}
        {role !== 'owner' && !merchant.live_enabled && <span class="muted"> (the owner turns it on)</span>}
        <ErrorNote error={live.error} />
      </li>
    </ul>
  );
}

export default function Overview() {
  const ctx = useApp();
  const [days, setDays] = useState(30);
  const figs = useLoad(() => ctx.api.get(withMode('/merchant/dashboard', ctx)), [ctx.test]);
  const series = useLoad(() => ctx.api.get(withMode(`/merchant/dashboard/series?days=${days}`, ctx)), [ctx.test, days]);
  useEffect(() => ctx.live.on('dashboard:update', (f: Json) => {
    if (f.livemode === !ctx.test) { figs.set(f); series.reload(); }
  }), [ctx.test, days]);
  // "today" starts at midnight UTC, which no event announces: read the figures and the chart again then.
  useEffect(() => onEachUtcDay(() => { figs.reload(); series.reload(); }), [ctx.test, days]);
  return (
    <>
      <h1>Overview</h1>
      {figs.data ? <Figures f={figs.data} /> : figs.error ? <ErrorNote error={figs.error} /> : <Loading what="Loading the figures" />}
      <Section title="Volume by day and chain" actions={
        <label>Span <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>{[7, 30, 90, 365].map((n) => <option key={n} value={n}>{n} days</option>)}</select></label>
      }>
        {series.data ? <VolumeChart data={series.data} /> : series.error ? <ErrorNote error={series.error} /> : <Loading what="Loading the chart" />}
      </Section>
      <Section title="Get set up"><Checklist /></Section>
    </>
  );
}
