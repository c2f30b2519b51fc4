// Notifications of the mode (CONTRACT.md Notifications), of one category or all (those the role
// sees: src/notifications/categories.ts), unread first to read, marked read one by one or all at
// once, new ones arriving live from `notification`, and marks made in another tab of the reader
// arriving from `notification:read` (sent to the reader's sockets only).
import { useEffect, useState } from 'preact/hooks';
import { qs, type Json } from '../lib/api.ts';
import { useApp, withMode } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ErrorNote, Loading, Pager, Section, useAction, useLoad } from '../lib/ui.tsx';
import { visibleTo } from '../../../src/notifications/categories.ts';

export default function Notifications() {
  const ctx = useApp();
  const [unread, setUnread] = useState(false);
  const [category, setCategory] = useState('');
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => ctx.api.get(withMode(`/merchant/notifications${qs({ unread, category, limit: 50, offset })}`, ctx)), [ctx.test, unread, category, offset]);
  useEffect(() => {
    const offs = ['notification', 'notification:read'].map((event) => ctx.live.on(event, () => list.reload()));
    return () => { for (const off of offs) off(); };
  }, [ctx.test, unread, category, offset]);
  const read = useAction(async (body: Json) => { await ctx.api.post('/merchant/notifications/read', body); list.reload(); });
  return (
    <>
      <h1>Notifications</h1>
      <Section title={list.data ? `${list.data.unread} unread` : 'Notifications'} actions={<span class="row">
        <label>Category <select value={category} onChange={(e) => { setOffset(0); setCategory(e.currentTarget.value); }}><option value="">All</option>{visibleTo(ctx.role).map((c) => <option key={c}>{c}</option>)}</select></label>
        <label><input type="checkbox" checked={unread} onChange={(e) => { setOffset(0); setUnread(e.currentTarget.checked); }} /> Unread only</label>
        <button type="button" class="ghost" onClick={() => { void read.run({ all: true, livemode: !ctx.test }); }}>Mark all read</button></span>}>
        <ErrorNote error={read.error ?? list.error} />
        {list.data ? <>
          <ul class="checklist">{(list.data.notifications as Json[]).map((n) => (
            <li key={n.id} class={n.read_at ? 'done' : 'todo'}><div><strong>{n.title}</strong> <span class="badge">{n.category}</span><br />{n.body}<br /><small class="muted">{when(n.created_at)}</small></div>
              {!n.read_at && <button type="button" class="ghost" onClick={() => { void read.run({ ids: [n.id] }); }}>Mark read</button>}</li>))}</ul>
          {list.data.notifications.length === 0 && <p class="muted">Nothing here.</p>}
          <Pager total={list.data.total} limit={50} offset={offset} onPage={setOffset} /></> : <Loading />}
      </Section>
    </>
  );
}
