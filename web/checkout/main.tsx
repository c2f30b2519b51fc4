// Boot: the payment and the words of the payer's language are fetched together, then the page
// renders once with both (no flash of another language, the address shown at first paint).
import { render } from 'preact';
import './checkout.css';
import { App } from './app.tsx';
import { initialLanguage, loadMessages } from './lib/i18n.ts';
import { apiOf, request, RequestError } from './lib/live.ts';
import type { Payment } from './lib/payment.ts';

const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

function contractsOf(json: string): Record<string, string> {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
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
render(<App api={api} contracts={contractsOf(meta('token-contracts'))} lang={lang} messages={messages} first={first as Payment | RequestError} />, root);
