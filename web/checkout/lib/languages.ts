// The page's languages and the choice among them from Accept-Language (the server picks the first
// one the page loads; the payer may switch). Pure: the server imports it too.

export const LANGUAGES = ['en', 'es', 'pt', 'ru', 'zh', 'tr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

/** Each language by its own name, for the switcher. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English', es: 'Español', pt: 'Português', ru: 'Русский', zh: '中文', tr: 'Türkçe',
};

export const isLanguage = (v: unknown): v is Language => typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v);

/**
 * The best of LANGUAGES for an Accept-Language header (RFC 9110 12.5.4): ranges by quality, then
 * by order; a region falls back to its language (`pt-BR` → pt, `zh-Hant-TW` → zh); `*` and no
 * match give English.
 */
export function pickLanguage(header: string | undefined | null): Language {
  if (!header) return DEFAULT_LANGUAGE;
  const ranges: { lang: string; q: number; order: number }[] = [];
  header.split(',').forEach((part, order) => {
    const [range, ...params] = part.trim().split(';');
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k?.trim().toLowerCase() === 'q') q = Number(v);
    }
    if (range && Number.isFinite(q) && q > 0) ranges.push({ lang: range.trim().toLowerCase(), q, order });
  });
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const r of ranges) {
    const primary = r.lang.split('-')[0];
    if (isLanguage(primary)) return primary;
  }
  return DEFAULT_LANGUAGE;
}
