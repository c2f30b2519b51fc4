// The member's own e-mail notifications (GET/PATCH /merchant/me/email-notifications, README
// "E-mail"): the referral "Payout requested" mail for the roles that see referrals, and whole
// categories among those their role sees. Saved with one PATCH of both.
import { useState } from 'preact/hooks';
import { useApp } from '../lib/context.ts';
import type { Role } from '../lib/paths.ts';
import { ErrorNote, Loading, Section, useAction, useLoad } from '../lib/ui.tsx';

interface Prefs { referral_payout_requested: boolean; categories: string[] }

/** CONTRACT.md "Notifications": every role sees every category but these (the API refuses the others). */
const CATEGORIES = ['account', 'payments', 'webhooks', 'payouts', 'affiliates', 'support', 'team', 'security'] as const;
const ONLY: Partial<Record<string, readonly Role[]>> = { affiliates: ['owner', 'finance'], team: ['owner'] };
export const categoriesOf = (role: Role): string[] => CATEGORIES.filter((c) => (ONLY[c] ?? [role]).includes(role));

export default function EmailNotifications() {
  const ctx = useApp();
  const load = useLoad(() => ctx.api.get<{ email_notifications: Prefs }>('/merchant/me/email-notifications').then((r) => r.email_notifications), []);
  const [draft, setDraft] = useState<Prefs | null>(null);
  const [saved, setSaved] = useState(false);
  const p = draft ?? load.data;
  const save = useAction(async () => {
    const r = await ctx.api.patch<{ email_notifications: Prefs }>('/merchant/me/email-notifications', p);
    load.set(r.email_notifications);
    setDraft(null);
    setSaved(true);
  });
  const edit = (next: Prefs) => { setSaved(false); setDraft(next); };
  const visible = categoriesOf(ctx.role);
  return (
    <Section title="E-mail notifications">
      {!p ? (load.error ? <ErrorNote error={load.error} /> : <Loading />) : (
        <form aria-label="E-mail notifications" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
          {visible.includes('affiliates') && <><label><input type="checkbox" checked={p.referral_payout_requested}
            onChange={(e) => edit({ ...p, referral_payout_requested: e.currentTarget.checked })} /> Payout requested (referral payouts)</label><br /></>}
          <fieldset><legend>Every notification of</legend>
            {visible.map((c) => (
              <label key={c}><input type="checkbox" checked={p.categories.includes(c)}
                onChange={(e) => edit({ ...p, categories: e.currentTarget.checked ? [...p.categories, c] : p.categories.filter((x) => x !== c) })} /> {c} </label>
            ))}
          </fieldset>
          <ErrorNote error={save.error} />
          <button type="submit" disabled={save.busy}>Save e-mail notifications</button>
          {saved && <span role="status"> Saved.</span>}
        </form>
      )}
    </Section>
  );
}
