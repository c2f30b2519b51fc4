// Building blocks shared by the pages: loading and error states (an error is shown in words next to
// what caused it, with role="alert"), labelled fields, tables that page, and the async action hook.
import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.status === 403 && e.message === 'insufficient permissions' ? 'Your role may not do this.' : e.message;
  return e instanceof Error ? e.message : String(e);
}

/** The error when its message names this field (shown beside it), else null. */
export function errorFor(e: unknown, ...words: string[]): unknown {
  const m = e instanceof Error ? e.message : '';
  return words.some((w) => m.startsWith(w) || m.includes(` ${w}`)) ? e : null;
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return <p class="loading" role="status" aria-live="polite">{what}…</p>;
}

export function ErrorNote({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  return <p class="error" role="alert" id={id}>{errorText(error)}</p>;
}

/**
 * Loads on mount and whenever `deps` change; `reload` loads again keeping the shown data. A reload
 * runs the latest `load` (the page and filters shown now), even from a socket listener added on an
 * earlier render.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void; set: (t: T) => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const seq = useRef(0);
  const latest = useRef(load);
  latest.current = load;
  const run = useCallback(() => {
    const n = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    latest.current().then(
      (data) => { if (n === seq.current) setState({ data, error: null, loading: false }); },
      (error: unknown) => { if (n === seq.current) setState((s) => ({ data: s.data, error, loading: false })); },
    );
  }, deps); // eslint-disable-line react-hooks/exhaustive-deps -- the caller names the dependencies
  useEffect(run, [run]);
  return { ...state, reload: run, set: (data: T) => setState({ data, error: null, loading: false }) };
}

/** An action with its pending flag and its error, shown next to the button or form that ran it. */
export function useAction<A extends unknown[]>(fn: (...a: A) => Promise<unknown>): { run: (...a: A) => Promise<boolean>; busy: boolean; error: unknown; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...a: A): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await fn(...a);
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clear: () => setError(null) };
}

let fieldSeq = 0;
/** A labelled control; its error is announced and tied to it (aria-describedby, aria-invalid). */
export function Field({ label, error, hint, children }: { label: string; error?: unknown; hint?: string; children: (p: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => JSX.Element }) {
  const [id] = useState(() => `f${++fieldSeq}`);
  const described = error ? `${id}-err` : hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': described })}
      {hint && !error && <small id={`${id}-hint`}>{hint}</small>}
      {error ? <ErrorNote error={error} id={`${id}-err`} /> : null}
    </div>
  );
}

export function Section({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head"><h2>{title}</h2>{actions}</header>
      {children}
    </section>
  );
}

export function Pager({ total, limit, offset, onPage }: { total: number; limit: number; offset: number; onPage: (offset: number) => void }) {
  if (total <= limit && offset === 0) return <p class="muted">{total} in all</p>;
  const last = Math.max(0, Math.floor((total - 1) / limit) * limit);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>Previous</button>
      <span>{total === 0 ? 0 : offset + 1}–{Math.min(offset + limit, total)} of {total}</span>
      <button type="button" disabled={offset >= last} onClick={() => onPage(offset + limit)}>Next</button>
    </nav>
  );
}

/**
 * Pages a list the API answers whole (stores, members, invitations, API keys, payout addresses):
 * `limit` rows at a time, with the pager shown only when there is more than one page.
 */
export function usePaged<T>(rows: readonly T[] | undefined, label: string, limit = 50): { shown: T[]; pager: JSX.Element | null } {
  const [offset, setOffset] = useState(0);
  const all = rows ?? [];
  // A list that shrank under the page shown goes back to its last page.
  const at = offset >= all.length && all.length > 0 ? Math.floor((all.length - 1) / limit) * limit : offset;
  const shown = all.slice(at, at + limit);
  if (all.length <= limit) return { shown, pager: null };
  return { shown, pager: <div role="group" aria-label={`${label}: pages`}><Pager total={all.length} limit={limit} offset={at} onPage={setOffset} /></div> };
}

export function Status({ value }: { value: string }) {
  return <span class={`badge s-${value}`}>{value.replace(/_/g, ' ')}</span>;
}

/** A simple table: a caption for screen readers, one header row, rows given as cells. */
export function Table({ caption, head, rows, empty = 'Nothing yet.' }: { caption: string; head: string[]; rows: ComponentChildren[][]; empty?: string }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead><tr>{head.map((h) => <th scope="col" key={h}>{h}</th>)}</tr></thead>
        <tbody>{rows.map((r, i) => <tr key={i}>{r.map((c, j) => <td key={j}>{c}</td>)}</tr>)}</tbody>
      </table>
    </div>
  );
}

/** Shows a secret once, to copy, with the warning that it cannot be shown again. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="region" aria-label={label}>
      <p><strong>{label}</strong>: copy it now, it is shown only once.</p>
      <code class="mono" data-testid="secret">{secret}</code>
      <div class="row">
        <button type="button" onClick={() => { void navigator.clipboard?.writeText(secret).then(() => setCopied(true)); }}>{copied ? 'Copied' : 'Copy'}</button>
        {onDone && <button type="button" class="ghost" onClick={onDone}>I have saved it</button>}
      </div>
    </div>
  );
}
