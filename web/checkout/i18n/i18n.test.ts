// Every language says everything English says, with the same placeholders.
import { describe, expect, it } from 'vitest';
import { CATALOGUES } from './all.ts';
import { LANGUAGES } from '../lib/languages.ts';
import { fill } from '../lib/i18n.ts';

const placeholders = (s: string): string[] => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('catalogues', () => {
  const en = CATALOGUES.en;
  it.each(LANGUAGES.filter((l) => l !== 'en'))('%s has every key, none empty, same placeholders', (lang) => {
    const c = CATALOGUES[lang];
    expect(Object.keys(c).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(en) as [keyof typeof en, string][]) {
      expect(c[key].trim(), `${lang}.${key}`).not.toBe('');
      expect(placeholders(c[key]), `${lang}.${key}`).toEqual(placeholders(text));
    }
  });

  it('fill puts values in and leaves unknown placeholders', () => {
    expect(fill('{coin} on {network}', { coin: 'USDT', network: 'Tron (TRC-20)' })).toBe('USDT on Tron (TRC-20)');
    expect(fill('{n} of {m}', { n: 0 })).toBe('0 of {m}');
  });
});
