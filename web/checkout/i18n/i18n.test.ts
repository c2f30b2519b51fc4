// Every language says everything English says, with the same placeholders.
import { describe, expect, it } from 'vitest';
import { CATALOGUES } from './all.ts';
import { LANGUAGES } from '../lib/languages.ts';
import { fill, formats } from '../lib/i18n.ts';

const placeholders = (s: string): string[] => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('catalogues', () => {
  const en = CATALOGUES.en;
  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s has every key, none empty, same placeholders', (lang) => {
    const c = CATALOGUES[lang];
    expect(Object.keys(c).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(en) as [keyof typeof en, string][]) {
      expect(c[key].length, `${lang}.${key}`).toBeGreaterThan(0);
      expect(placeholders(c[key]), `${lang}.${key}`).toEqual(placeholders(text));
    }
  });

  it.each(LANGUAGES)('%s: the test-mode banner names the simulate panel only in its own text, shown with the panel', (lang) => {
    const c = CATALOGUES[lang] as Record<string, string>;
    // shown when the page has no simulate panel (closed, confirmed, detecting, a simulation running)
    expect(c.testBanner, lang).toBeTruthy();
    expect(c.testBannerSimulate, lang).toBeTruthy();
    expect(c.testBannerSimulate.startsWith(c.testBanner), lang).toBe(true);
    expect(c.testBannerSimulate.length, lang).toBeGreaterThan(c.testBanner.length);
  });

  it('writes dollars as each language does (as Intl would, without its first-use cost)', () => {
    const written: Record<string, string> = { en: '$1,234.50', es: '1.234,50\u00a0US$', pt: 'US$\u00a01.234,50', ru: '1\u00a0234,50\u00a0$', zh: 'US$1,234.50', tr: '$1.234,50' };
    for (const lang of LANGUAGES) expect(formats(lang, CATALOGUES[lang]).usd('1234.50'), lang).toBe(written[lang]);
    expect(formats('en', CATALOGUES.en).usd('25')).toBe('$25.00');
    expect(formats('en', CATALOGUES.en).usd('1234567.5')).toBe('$1,234,567.50');
    expect(formats('en', CATALOGUES.en).usd('0.05')).toBe('$0.05');
  });

  it('fill puts values in and leaves unknown placeholders', () => {
    expect(fill('{coin} on {network}', { coin: 'USDT', network: 'Tron (TRC-20)' })).toBe('USDT on Tron (TRC-20)');
    expect(fill('{n} of {m}', { n: 0 })).toBe('0 of {m}');
  });
});
