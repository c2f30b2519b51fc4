import { describe, expect, it } from 'vitest';
import { csvField, toCsv } from './csv.ts';

describe('CSV of the shown rows', () => {
  it('quotes commas, quotes and line breaks, and doubles quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(undefined)).toBe('');
    expect(csvField(false)).toBe('false');
  });
  it('never lets a spreadsheet run a field as a formula, but keeps negative numbers', () => {
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('+1 555')).toBe("'+1 555");
    expect(csvField('@sum')).toBe("'@sum");
    expect(csvField('-12.5')).toBe('-12.5');
  });
  it('writes a header and one line per row, in column order', () => {
    expect(toCsv(['id', 'usd_amount'], [{ usd_amount: '25', id: 'pay_1' }, { id: 'pay_2' }])).toBe('id,usd_amount\r\npay_1,25\r\npay_2,\r\n');
  });
});
