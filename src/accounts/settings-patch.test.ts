import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TOKENS } from '../tokens/index.ts';
import { AppError } from '../platform/errors.ts';
import { parseSettingsPatch } from './settings-patch.ts';

const message = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).message;
  }
};

describe('parseSettingsPatch', () => {
  it('accepts every tolerance from 0 to 2000 and refuses everything else', () => {
    fc.assert(fc.property(fc.integer({ min: -5000, max: 5000 }), (bps) => {
      const m = message(() => parseSettingsPatch({ underpaid_tolerance_bps: bps }));
      expect(m === null).toBe(bps >= 0 && bps <= 2000);
    }));
    expect(message(() => parseSettingsPatch({ underpaid_tolerance_bps: 0.5 }))).toBe('underpaid_tolerance_bps must be between 0 and 2000');
  });

  it('stores any non-empty choice of tokens in catalog order without duplicates', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 30 }), (list) => {
      const { enabledTokens } = parseSettingsPatch({ enabled_tokens: list });
      expect(enabledTokens).toEqual(TOKENS.filter((t) => list.includes(t)));
    }));
  });

  it('names the first unsupported token', () => {
    expect(message(() => parseSettingsPatch({ enabled_tokens: ['BTC', 'btc'] }))).toBe('unsupported token: btc');
    expect(message(() => parseSettingsPatch({ enabled_tokens: [3] }))).toBe('unsupported token: 3');
  });

  it('changes only the fields sent and checks them in the spec order', () => {
    expect(parseSettingsPatch({ convert_into: 'order', other: 1 })).toEqual({ convertInto: 'order' });
    expect(parseSettingsPatch({ convert_into: 'BTC' })).toEqual({ convertInto: 'BTC' });
    expect(message(() => parseSettingsPatch({ settlement: 'x', underpaid_tolerance_bps: -1 }))).toBe('underpaid_tolerance_bps must be between 0 and 2000');
    expect(message(() => parseSettingsPatch({}))).toBe('nothing to update');
  });
});
