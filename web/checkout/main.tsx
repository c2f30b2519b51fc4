// Boot: the payment and the words of the payer's language are fetched together, then the page
// renders once with both (no flash of another language, the address shown at first paint).
import { render } from 'preact';
import './checkout.css';
import { App } from './app.tsx';
import { initialLanguage, loadMessages } from './lib/i18n.ts';
import { apiOf, request, RequestError } from './lib/live.ts';
import type { Payment } from './lib/payment.ts';

const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

/** A meta tag's JSON object; {} when it is not one (the page served unfilled, by Vite's dev server). */
function objectOf<T>(json: string): Record<string, T> {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, T>) : {};
  } catch {
    return {};
  }
}

// The checkout token is the last part of the path (/pay/<checkout_token>), however the payer came.
const token = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
const api = apiOf(meta('api-base'), token);
const lang = initialLanguage();
const [messages, first] = await Promise.all([
  loadMessages(lang),
  request('GET', api.url).catch((e: unknown): RequestError => (e instanceof RequestError ? e : new RequestError(String(e), 0))),
]);
const root = document.getElementById('root')!;
root.textContent = '';
render(<App api={api} networks={{ contracts: objectOf<string>(meta('token-contracts')), chainIds: objectOf<number | null>(meta('evm-chain-ids')) }} lang={lang} messages={messages} first={first as Payment | RequestError} />, root);
