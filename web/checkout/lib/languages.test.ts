import { describe, expect, it } from 'vitest';
import { pickLanguage } from './languages.ts';

describe('language from Accept-Language', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['*', 'en'],
    ['fr-FR,fr;q=0.9', 'en'],
    ['es-ES,es;q=0.9,en;q=0.8', 'es'],
    ['pt-BR', 'pt'],
    ['zh-Hant-TW,zh;q=0.8', 'zh'],
    ['RU', 'ru'],
    ['de;q=1, tr;q=0.5, en;q=0.4', 'tr'],
    ['en;q=0.5, ru;q=0.9', 'ru'],
    ['es;q=0, pt;q=0.1', 'pt'],
    ['fr, es', 'es'],
    ['es;q=abc, tr', 'tr'],
  ])('%s → %s', (header, lang) => {
    expect(pickLanguage(header)).toBe(lang);
  });
});
