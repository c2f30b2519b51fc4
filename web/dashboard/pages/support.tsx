// Support chat (CONTRACT.md Support chat): the conversation oldest first, older messages on demand,
// send, edit and delete your own, read marks and typing both ways, all live.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Json } from '../lib/api.ts';
import { useApp } from '../lib/context.ts';
import { when } from '../lib/format.ts';
import { ErrorNote, Field, Loading, Section, useAction, useLoad } from '../lib/ui.tsx';

/** The edit box of one's own message: saved with PATCH, the change reaching every tab by `support:message:update`. */
function EditMessage({ message, onSaved, onCancel }: { message: Json; onSaved: (m: Json) => void; onCancel: () => void }) {
  const { api } = useApp();
  const [body, setBody] = useState(message.body as string);
  const save = useAction(async () => onSaved((await api.patch(`/merchant/support/messages/${message.id}`, { body })).message));
  return (
    <form aria-label="Edit message" onSubmit={(e) => { e.preventDefault(); void save.run(); }}>
      <Field label="New text" error={save.error}>{(p) => <textarea {...p} rows={2} maxLength={4000} value={body} onInput={(e) => setBody(e.currentTarget.value)} />}</Field>
      <div class="row">
        <button type="submit" disabled={save.busy}>Save</button>
        <button type="button" class="ghost" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

export default function Support() {
  const ctx = useApp();
  const list = useLoad(() => ctx.api.get('/merchant/support/messages?limit=50'), []);
  const [msgs, setMsgs] = useState<Json[]>([]);
  const [typing, setTyping] = useState<string | null>(null);
  const [body, setBody] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const typingSent = useRef(false);
  useEffect(() => { if (list.data) setMsgs(list.data.messages); }, [list.data]);
  useEffect(() => { void ctx.api.post('/merchant/support/read').catch(() => undefined); }, [msgs.length]);
  useEffect(() => { box.current?.scrollTo(0, box.current.scrollHeight); }, [msgs.length]);
  useEffect(() => {
    const offs = [
      ctx.live.on('support:message', (m: Json) => setMsgs((xs) => (xs.some((x) => x.id === m.id) ? xs : [...xs, m]))),
      ctx.live.on('support:message:update', (m: Json) => setMsgs((xs) => xs.map((x) => (x.id === m.id ? m : x)))),
      ctx.live.on('support:typing', (t: Json) => setTyping(t.typing && t.side === 'support' ? t.name ?? 'Support' : null)),
    ];
    return () => offs.forEach((o) => o());
  }, []);
  const send = useAction(async () => {
    const r = await ctx.api.post('/merchant/support/messages', { body });
    setMsgs((xs) => (xs.some((x) => x.id === r.message.id) ? xs : [...xs, r.message]));
    setBody('');
    ctx.live.emit('support:typing', { typing: false });
    typingSent.current = false;
  });
  const older = useAction(async () => {
    const r = await ctx.api.get(`/merchant/support/messages?limit=50&before=${msgs[0]?.id}`);
    setMsgs((xs) => [...r.messages, ...xs]);
  });
  const replace = (m: Json) => setMsgs((xs) => xs.map((x) => (x.id === m.id ? m : x)));
  const del = useAction(async (id: string) => { replace((await ctx.api.del(`/merchant/support/messages/${id}`)).message); });
  const onInput = (v: string) => {
    setBody(v);
    if (!typingSent.current && v) { ctx.live.emit('support:typing', { typing: true }); typingSent.current = true; }
    if (typingSent.current && !v) { ctx.live.emit('support:typing', { typing: false }); typingSent.current = false; }
  };
  return (
    <>
      <h1>Support</h1>
      <Section title="Conversation with support">
        {!list.data ? (list.error ? <ErrorNote error={list.error} /> : <Loading />) : <>
          {msgs.length >= 50 && <button type="button" class="ghost" onClick={() => { void older.run(); }}>Older messages</button>}
          <div class="chat" ref={box} role="log" aria-live="polite" aria-label="Messages">
            {msgs.length === 0 && <p class="muted">Ask us anything: the team answers here.</p>}
            {msgs.map((m) => (
              <div key={m.id} class={`msg ${m.side === 'merchant' ? 'mine' : ''}`}>
                <small>{m.author?.email ?? m.author?.name ?? m.side} · {when(m.created_at)}{m.edited_at ? ' · edited' : ''}</small>
                {editing === m.id && !m.deleted_at
                  ? <EditMessage message={m} onSaved={(x) => { replace(x); setEditing(null); }} onCancel={() => setEditing(null)} />
                  : <div class="msg-body">{m.deleted_at ? <em>deleted</em> : m.body}</div>}
                {(m.author?.id === ctx.user.id || (ctx.role === 'owner' && m.side === 'merchant')) && !m.deleted_at && editing !== m.id && <div class="row">
                  {m.author?.id === ctx.user.id && <button type="button" class="ghost" aria-label="Edit this message" onClick={() => setEditing(m.id)}>Edit</button>}
                  <button type="button" class="ghost" aria-label="Delete this message" onClick={() => { if (confirm('Delete this message?')) void del.run(m.id); }}>Delete</button>
                </div>}
              </div>
            ))}
          </div>
          <p role="status" class="muted">{typing ? `${typing} is typing…` : ''}</p>
        </>}
        <form onSubmit={(e) => { e.preventDefault(); void send.run(); }} aria-label="Send a message">
          <Field label="Message" error={send.error}>{(p) => <textarea {...p} rows={3} maxLength={4000} value={body} onInput={(e) => onInput(e.currentTarget.value)} />}</Field>
          <button type="submit" disabled={send.busy || !body.trim()}>Send</button>
        </form>
        <ErrorNote error={del.error ?? older.error} />
      </Section>
    </>
  );
}
