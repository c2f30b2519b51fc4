import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ACTIVATION_DELAY_MS, activeAt, parseTag } from './address-rules.ts';
import { csvField } from './statement.ts';

describe('address activation (direct rule 2)', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('uses the first live address at once and anything that could redirect 24 hours later', () => {
    const base = { livemode: true, now, otherInForce: false, deletedBefore: false, changed: false };
    expect(activeAt(base)).toEqual(now);
    expect(activeAt({ ...base, otherInForce: true }).getTime() - now.getTime()).toBe(ACTIVATION_DELAY_MS);
    expect(activeAt({ ...base, deletedBefore: true }).getTime() - now.getTime()).toBe(ACTIVATION_DELAY_MS);
    expect(activeAt({ ...base, changed: true }).getTime() - now.getTime()).toBe(ACTIVATION_DELAY_MS);
  });
  it('uses test addresses at once whatever happened (property)', () => {
    fc.assert(fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (o, d, c) => {
      expect(activeAt({ livemode: false, now, otherInForce: o, deletedBefore: d, changed: c })).toEqual(now);
    }));
  });
  it('takes a tag on XRP only', () => {
    expect(parseTag('XRP', 7)).toBe(7);
    expect(parseTag('XRP', null)).toBeNull();
    expect(() => parseTag('BTC', 7)).toThrow('only XRP addresses take a destination tag');
    expect(parseTag('BTC', undefined)).toBeUndefined();
  });
});

describe('CSV fields (RFC 4180)', () => {
  it('quotes fields with commas, quotes or line breaks and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('one\ntwo')).toBe('"one\ntwo"');
    expect(csvField('cr\r')).toBe('"cr\r"');
  });
  it('prefixes a formula-like field with a quote mark, never a plain number', () => {
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('+x')).toBe("'+x");
    expect(csvField('-2.5')).toBe('-2.5');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
  });
  it('reads back to the original text, a formula-like one behind its quote mark (property)', () => {
    const unquote = (f: string): string => (f.startsWith('"') ? f.slice(1, -1).replaceAll('""', '"') : f);
    const formulaLike = (s: string) => /^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s);
    fc.assert(fc.property(fc.string(), (s) => {
      const f = csvField(s);
      expect(unquote(f)).toBe(formulaLike(s) ? `'${s}` : s);
      if (!f.startsWith('"')) expect(/[",\r\n]/.test(f)).toBe(false);
    }));
  });
});
