// Audit log (owner): filters of spec 4.4 (action or prefix, subject, payment, actor, days), newest
// first, paged; live from `audit:entry` on the first page.
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Pager, Section, Table, useLoad } from '../lib/ui.tsx';

const LIMIT = 100;
export default function Audit() {
  const ctx = useApp();
  const [draft, setDraft] = useState({ action: '', subject: '', payment_id: '', actor_id: '', from: '', to: '' });
  const text = (k: keyof typeof draft) => (e: Event) => setDraft({ ...draft, [k]: (e.currentTarget as HTMLInputElement).value.trim() });
  const [f, setF] = useState(draft);
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(`/merchant/audit${qs({ ...f, limit: LIMIT, offset })}`), [f, offset]);
  useEffect(() => ctx.live.on('audit:entry', () => { if (offset === 0) list.reload(); }), [offset, f]);
  return (
    <>
      <h1>Audit log</h1>
      <Section title="Filter">
        <form class="inline" aria-label="Filter" onSubmit={(e) => { e.preventDefault(); setOffset(0); setF({ ...draft }); }}>
          <Field label="Action" hint="Exact, or a prefix ending in a dot">{(p) => <input {...p} value={draft.action} onInput={(e) => setDraft({ ...draft, action: e.currentTarget.value })} />}</Field>
          <Field label="Subject" hint="What changed: its id (a webhook: <account id>:live or :test)">{(p) => <input {...p} class="mono" value={draft.subject} onInput={text('subject')} />}</Field>
          <Field label="Payment id">{(p) => <input {...p} class="mono" value={draft.payment_id} onInput={text('payment_id')} />}</Field>
          <Field label="Actor id" hint="A member's, an API key's or a customer's id">{(p) => <input {...p} class="mono" value={draft.actor_id} onInput={text('actor_id')} />}</Field>
          <Field label="From">{(p) => <input {...p} type="date" value={draft.from} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />}</Field>
          <Field label="To">{(p) => <input {...p} type="date" value={draft.to} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />}</Field>
          <button type="submit">Apply</button>
        </form>
        <ErrorNote error={list.error} />
      </Section>
      <Section title="Entries">
        {list.data ? <><Table caption="Audit entries" head={['When', 'Action', 'By', 'Subject', 'From']}
          rows={(list.data.entries as Json[]).map((a) => [when(a.at), a.action, a.actor?.email ?? `${a.actor?.kind} ${a.actor?.id ?? ''}`, <span class="mono">{a.subject}</span>, a.actor?.ip ?? ''])} />
          <Pager total={list.data.total} limit={LIMIT} offset={offset} onPage={setOffset} /></> : <Loading />}
      </Section>
    </>
  );
}
