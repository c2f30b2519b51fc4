// What the member was typing, kept across a sign-in (README "The merchant dashboard", Session).
// When the server ends the session for a reason signing in again mends (expired, revoked, role or
// password changed), the page's path and the text typed into its forms are kept in this tab's
// sessionStorage; the same member signing in again within 30 minutes lands back on that page with
// the text filled in again (then it is dropped). Anyone else signing in gets nothing, and the draft
// is dropped. Never kept: passwords (input type=password, autocomplete *password), any field named
// like a key, secret or token, checkboxes, and fields inside [data-draft="off"].
//
// One general helper rather than per-page code: the forms' controls are found in the DOM (a form by
// its aria-label, a field by its name or label), only those the member typed into or chose in (an
// input or change event), and filled again by setting the value and sending the event the page listens
// to, one field per render, so each page's controlled state takes it as if typed.
import { navigate } from './router.ts';
import type { Session, SignedIn } from './session.ts';

const STORE = 'gateway-dashboard-draft';
export const DRAFT_TTL_MS = 30 * 60_000;
/** How long, after the sign-in, a page may take to show the fields (its code and data loading). */
const FILL_FOR_MS = 15_000;
const TEXT_TYPES = new Set(['text', 'email', 'url', 'tel', 'search', 'number', 'date', 'datetime-local', 'month', 'week', 'time']);
const SECRET = /pass(word|phrase)|secret|private|mnemonic|seed|\botp\b|one-time|\bkey\b|api.?key|token|\bpin\b|cvc|cvv/i;

type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
interface Kept { form: string; field: string; value: string }
interface Draft { user: string; merchant: string; path: string; at: number; fields: Kept[] }

const typed = new WeakSet<Element>();

const nameOf = (el: Control): string =>
  el.name || el.getAttribute('aria-label') || el.labels?.[0]?.textContent?.trim() || ('placeholder' in el ? el.placeholder : '') || '';

function keepable(el: Control): boolean {
  if (el.disabled || el.closest('[data-draft="off"]')) return false;
  if (el instanceof HTMLInputElement && !TEXT_TYPES.has(el.type)) return false; // password, hidden, file, checkbox…
  if (/password|one-time-code|cc-/.test(el.autocomplete)) return false;
  return !SECRET.test(`${el.name} ${el.id} ${nameOf(el)} ${el.getAttribute('autocomplete') ?? ''}`);
}

/** The keepable controls of the forms of the app's page, each with a name stable across renders. */
function controls(): Array<{ el: Control; form: string; field: string }> {
  const out: Array<{ el: Control; form: string; field: string }> = [];
  const seen = new Map<string, number>();
  document.querySelectorAll<HTMLFormElement>('main#main form').forEach((f, i) => {
    const form = f.getAttribute('aria-label') || `form ${i + 1}`;
    f.querySelectorAll<Control>('input, textarea, select').forEach((el) => {
      const name = nameOf(el);
      if (!name || !keepable(el)) return;
      const k = `${form}\n${name}`;
      const n = (seen.get(k) ?? 0) + 1;
      seen.set(k, n);
      out.push({ el, form, field: n > 1 ? `${name} #${n}` : name });
    });
  });
  return out;
}

function read(): Draft | null {
  try { return JSON.parse(sessionStorage.getItem(STORE) ?? 'null') as Draft | null; } catch { return null; }
}
function clear(): void {
  try { sessionStorage.removeItem(STORE); } catch { /* storage refused: nothing kept */ }
}

/** Keeps the page and what was typed into its forms, for `who` signing in again. */
function save(who: SignedIn): void {
  const fields = controls().filter((c) => typed.has(c.el) && c.el.value !== '').map(({ el, form, field }) => ({ form, field, value: el.value }));
  const draft: Draft = { user: who.user.id, merchant: who.merchant.id, path: location.pathname + location.search, at: Date.now(), fields };
  try { sessionStorage.setItem(STORE, JSON.stringify(draft)); } catch { /* storage full or refused: nothing kept */ }
}

/** Fills the kept fields in as the page shows them, one per render, until all are in or time is up. */
function fill(fields: Kept[]): void {
  let left = fields;
  const path = location.pathname + location.search;
  const until = Date.now() + FILL_FOR_MS;
  const step = () => {
    if (left.length === 0 || Date.now() > until || location.pathname + location.search !== path) return;
    const here = controls();
    for (const k of left) {
      const c = here.find((h) => h.form === k.form && h.field === k.field);
      if (!c) continue;
      if (c.el.value === k.value) { left = left.filter((x) => x !== k); typed.add(c.el); continue; }
      c.el.value = k.value;
      if (c.el.value !== k.value) continue; // a choice not listed yet: tried again later
      c.el.dispatchEvent(new Event(c.el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
      break; // the page renders before the next field, so its state takes every one
    }
    setTimeout(step, 50);
  };
  step();
}

/** Wires drafts to the session: kept as it ends, filled in again when the same member is back. */
export function keepDrafts(session: Session): void {
  const mark = (e: Event) => { if (e.target instanceof Element) typed.add(e.target); };
  document.addEventListener('input', mark, true);
  document.addEventListener('change', mark, true);
  session.onEnd = (who, resumable) => { if (resumable) save(who); else clear(); };
  session.subscribe((s) => {
    if (s.status !== 'signed-in') return;
    const d = read();
    if (!d) return;
    clear();
    if (d.user !== s.user.id || d.merchant !== s.merchant.id || Date.now() - d.at > DRAFT_TTL_MS) return;
    if (location.pathname + location.search !== d.path) navigate(d.path, { replace: true, keepMode: false });
    fill(d.fields);
  });
}
