import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec } from '../money/index.ts';
import { parseCreateInput, positiveDecimalMessage } from './create-input.ts';

const answer = (body: Record<string, unknown>) => {
  try {
    const got = parseCreateInput({ order_id: 'o-1', amount_usd: '10', price_currency: 'EUR', ...body });
    return { priceAmount: got.priceAmount, priceRate: got.priceRate };
  } catch (err) {
    return (err as Error).message;
  }
};

describe('price_amount and price_rate', () => {
  it('read a JSON number as the decimal it is, however JavaScript would print it (1e-7, 5e-7)', () => {
    expect(answer({ price_amount: 1e-7 })).toEqual({ priceAmount: '0.0000001', priceRate: undefined });
    expect(answer({ price_rate: 5e-7 })).toEqual({ priceAmount: undefined, priceRate: '0.0000005' });
    expect(answer({ price_amount: 1e21 })).toBe(positiveDecimalMessage('price_amount'));
  });

  // the small ones apart, with few enough digits to be a price: JavaScript prints them in exponent form
  const smallWithFewDigits = fc.tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: -18, max: -7 })).map(([k, e]) => Number(`${k}e${e}`));
  it('answer a number as its decimal string (property)', () => {
    fc.assert(fc.property(fc.constantFrom('price_amount', 'price_rate'), fc.oneof(smallWithFewDigits, fc.double({ min: 1e-6, max: 1e22, noNaN: true })), (field, n) => {
      expect(answer({ [field]: n })).toEqual(answer({ [field]: dec(n).toFixed() }));
    }));
  });
});
