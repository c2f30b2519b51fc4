// Settings (owner): what payments are created with (spec 2 Merchant object), sent as only the
// changed fields, and the accepted coins. An error of the API that names a field is shown beside it.
import { useState } from 'preact/hooks';
import type { Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { ErrorNote, Field, Loading, Section, errorFor, useAction, useLoad } from '../lib/ui.tsx';

/** `convert_into` (spec 2): `cheapest` (the default), `order`, or a coin. */
const CONVERT = [['cheapest', 'The cheapest coin at that amount'], ['order', 'In order: a stablecoin of the same network, else USDT (Tron), else the oldest address']];

export default function Settings() {
  const ctx = useApp();
  const m = ctx.merchant;
  const tokens = useLoad(() => ctx.api.get('/merchant/tokens'), []);
  const [f, setF] = useState<Json>({});
  const [saved, setSaved] = useState(false);
  const v = (k: string) => (k in f ? f[k] : m[k]);
  const save = useAction(async () => {
    const body: Json = {};
    for (const [k, x] of Object.entries(f)) if (JSON.stringify(x) !== JSON.stringify(m[k])) body[k] = x;
    const r = await ctx.api.patch('/merchant/settings', body);
    ctx.session.setMerchant(r.merchant);
    setF({});
    setSaved(true);
  });
  const set = (k: string, x: unknown) => { setSaved(false); setF({ ...f, [k]: x }); };
  const enabled: string[] = v('enabled_tokens') ?? [];
  // The field an error names gets it; any other error stays under the form.
  const FIELDS = ['underpaid_tolerance_bps', 'settlement', 'payout_schedule', 'convert_into', 'enabled_tokens'];
  const at = (k: string) => errorFor(save.error, k);
  const other = FIELDS.some((k) => at(k)) ? null : save.error;
  const coins: Json[] = tokens.data?.tokens ?? [];
  return (
    <>
      <h1>Settings</h1>
      <form onSubmit={(e) => { e.preventDefault(); void save.run(); }} aria-label="Settings">
        <Section title="Payments">
          <Field label="Underpaid tolerance (basis points, 0 to 2000)" error={at('underpaid_tolerance_bps')}>{(p) => <input {...p} inputMode="numeric" value={v('underpaid_tolerance_bps')} onInput={(e) => set('underpaid_tolerance_bps', Number(e.currentTarget.value))} />}</Field>
          <label><input type="checkbox" checked={v('fees_paid_by_customer')} onChange={(e) => set('fees_paid_by_customer', e.currentTarget.checked)} /> The customer pays the fees</label><br />
          <label><input type="checkbox" checked={v('accept_other_assets')} onChange={(e) => set('accept_other_assets', e.currentTarget.checked)} /> Count deposits in another accepted coin</label><br />
          <label><input type="checkbox" checked={v('hide_below_minimum')} onChange={(e) => set('hide_below_minimum', e.currentTarget.checked)} /> Hide coins below their exchange minimum</label>
        </Section>
        <Section title="Settlement">
          <Field label="Settlement" error={at('settlement')}>{(p) => <select {...p} value={v('settlement')} onChange={(e) => set('settlement', e.currentTarget.value)}>{['direct', 'custodial', 'scheduled'].map((s) => <option key={s}>{s}</option>)}</select>}</Field>
          <Field label="Payout schedule (scheduled)" error={at('payout_schedule')}>{(p) => <select {...p} value={v('payout_schedule')} onChange={(e) => set('payout_schedule', e.currentTarget.value)}>{['instant', 'daily', 'weekly'].map((s) => <option key={s}>{s}</option>)}</select>}</Field>
          <Field label="Convert into" error={at('convert_into')} hint="Where a deposit of a coin without a payout address is converted to">{(p) => (
            <select {...p} value={v('convert_into')} onChange={(e) => set('convert_into', e.currentTarget.value)}>
              {CONVERT.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
              {/* the stored coin stays listed while the catalog loads */}
              {coins.length === 0 && !CONVERT.some(([c]) => c === v('convert_into')) && <option value={v('convert_into')}>{v('convert_into')}</option>}
              {coins.map((t) => <option key={t.token} value={t.token}>{t.token} ({t.chain})</option>)}
            </select>)}</Field>
        </Section>
        <Section title="Accepted coins">
          {tokens.data ? <fieldset><legend class="sr-only">Accepted coins</legend>{(tokens.data.tokens as Json[]).map((t) => (
            <label key={t.token}><input type="checkbox" checked={enabled.includes(t.token)} onChange={(e) => set('enabled_tokens', e.currentTarget.checked ? [...enabled, t.token] : enabled.filter((x) => x !== t.token))} /> {t.token} ({t.chain}) </label>
          ))}</fieldset> : <Loading />}
          <ErrorNote error={at('enabled_tokens')} />
        </Section>
        <ErrorNote error={other} />
        <button type="submit" disabled={save.busy || Object.keys(f).length === 0}>Save settings</button> {saved && <span role="status">Saved.</span>}
      </form>
    </>
  );
}
