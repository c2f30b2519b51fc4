// The page's words: each language is its own chunk, loaded when chosen (the server preloads the
// one Accept-Language picks, so it arrives with the page's script).
import type { Messages } from '../i18n/en.ts';
import { DEFAULT_LANGUAGE, isLanguage, type Language } from './languages.ts';

export type { Messages };
export type MessageKey = keyof Messages;

const LOADERS: Record<Language, () => Promise<{ default: Messages }>> = {
  en: () => import('../i18n/en.ts'),
  es: () => import('../i18n/es.ts'),
  pt: () => import('../i18n/pt.ts'),
  ru: () => import('../i18n/ru.ts'),
  zh: () => import('../i18n/zh.ts'),
  tr: () => import('../i18n/tr.ts'),
};

export async function loadMessages(lang: Language): Promise<Messages> {
  return (await LOADERS[lang]()).default;
}

/** Fills `{name}` placeholders; an unknown one stays as written. */
export const fill = (template: string, vars: Readonly<Record<string, string | number>> = {}): string =>
  template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in vars ? String(vars[key]) : whole));

const STORE_KEY = 'checkout.language';

/** The payer's own choice, kept on this device; else what the server picked from Accept-Language. */
export function initialLanguage(): Language {
  try {
    const saved = localStorage.getItem(STORE_KEY);
    if (isLanguage(saved)) return saved;
  } catch { /* storage may be blocked: the server's choice stands */ }
  const served = document.documentElement.lang;
  return isLanguage(served) ? served : DEFAULT_LANGUAGE;
}

export function rememberLanguage(lang: Language): void {
  try { localStorage.setItem(STORE_KEY, lang); } catch { /* not kept: fine */ }
}

export interface Formats {
  lang: Language;
  /** Dollars from a decimal string, exactly, as the language writes them ("$25.00", "25,00 US$"). */
  usd(amount: string): string;
  /** An amount in another currency (price_currency), every decimal kept; as written when Intl refuses the code. */
  money(amount: string, currency: string): string;
  dateTime(d: Date): string;
}

/** Intl formatting takes a decimal string as it is (no float rounding). */
type Decimalish = Parameters<Intl.NumberFormat['format']>[0];

/** A decimal string with at least 2 decimals, grouped by thousands. */
function decimal(amount: string, m: Messages): string {
  const [whole = '0', frac = ''] = amount.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, m.groupSeparator);
  return `${grouped}${m.decimalSeparator}${frac.padEnd(2, '0')}`;
}

export function formats(lang: Language, m: Messages): Formats {
  // Made on first use: Intl's formatters cost the first render tens of milliseconds.
  let dt: Intl.DateTimeFormat | undefined;
  return {
    lang,
    usd: (amount) => fill(m.usd, { amount: decimal(amount, m) }),
    money: (amount, currency) => {
      try {
        // The currency's own decimals at least (€23.00, ¥1,000), never fewer than price_amount has.
        return new Intl.NumberFormat(lang, { style: 'currency', currency, maximumFractionDigits: 20 }).format(amount as Decimalish);
      } catch {
        return `${amount} ${currency}`;
      }
    },
    dateTime: (d) => (dt ??= new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' })).format(d),
  };
}
