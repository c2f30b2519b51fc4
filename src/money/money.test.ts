import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dec, plain, plainText, formatUnits, formatUsd, formatUsd2, parseAmountUsd, parseUnits, rateHalfUp, rescaleUnitsDown, quotientUnitsRoundedUp, roundUnitsUp, unitsRoundedUp, usdHalfUp, usdUp } from './index.ts';

describe('coin units', () => {
  it('formats base units without trailing zeros', () => {
    expect(formatUnits(150000000n, 8)).toBe('1.5');
    expect(formatUnits(1n, 8)).toBe('0.00000001');
    expect(formatUnits(3000n * 10n ** 18n, 18)).toBe('3000');
    expect(formatUnits(0n, 6)).toBe('0');
    expect(formatUnits(-2500000n, 6)).toBe('-2.5');
  });

  it('parses decimal strings exactly and refuses more decimals than the coin has', () => {
    expect(parseUnits('0.00000001', 8)).toBe(1n);
    expect(parseUnits('1.50', 8)).toBe(150000000n);
    expect(parseUnits('0.000000001', 8)).toBeUndefined();
    expect(parseUnits('-1', 8)).toBeUndefined();
    expect(parseUnits('1e3', 8)).toBeUndefined();
  });

  it('round-trips every amount through its string form (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.constantFrom(6, 8, 18), (units, decimals) => {
      expect(parseUnits(formatUnits(units, decimals), decimals)).toBe(units);
    }));
  });

  it('rounds a coin quantity up at its precision, never below the exact value (property)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), fc.constantFrom([8, 18], [6, 6], [6, 18], [8, 8]),
      (usdCents, ratePenny, [places, decimals]) => {
        const exact = dec(usdCents).div(100).div(dec(ratePenny).div(100));
        const units = unitsRoundedUp(exact, places, decimals);
        const asDecimal = dec(units).div(dec(10n ** BigInt(decimals)));
        expect(asDecimal.gte(exact)).toBe(true);
        // less than one step of precision above the exact value
        expect(asDecimal.minus(exact).lt(dec(10).pow(-places))).toBe(true);
        // a multiple of the precision step
        expect(units % 10n ** BigInt(decimals - places)).toBe(0n);
      },
    ));
  });

  it('gives what rounding, multiplying by 10^decimals and printing gives (property)', () => {
    const byMultiplying = (amount: string, places: number, decimals: number): bigint =>
      BigInt(dec(amount).toDecimalPlaces(places, 0).mul(dec(10n ** BigInt(decimals))).toFixed(0));
    fc.assert(fc.property(
      fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.integer({ min: 0, max: 30 }), fc.constantFrom([0, 0], [0, 6], [2, 8], [8, 18], [6, 6], [18, 18]),
      (digits, scale, [places, decimals]) => {
        const amount = dec(digits).div(dec(10).pow(scale));
        expect(unitsRoundedUp(amount, places, decimals)).toBe(byMultiplying(amount.toFixed(), places, decimals));
        expect(unitsRoundedUp(amount.toFixed(), places, decimals)).toBe(byMultiplying(amount.toFixed(), places, decimals));
      },
    ));
  });

  it('divides and rounds up exactly: the least multiple of the step at or above the true quotient (property)', () => {
    // The true quotient from a division 400 digits wide, where 120-digit rounding cannot reach.
    const Wide = dec(0).constructor as unknown as { clone(o: object): new (v: string) => ReturnType<typeof dec> };
    const W = Wide.clone({ precision: 400 });
    fc.assert(fc.property(
      fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.integer({ min: 0, max: 12 }),
      fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.integer({ min: 0, max: 14 }), fc.boolean(),
      fc.constantFrom([8, 18], [6, 6], [6, 18], [8, 8], [0, 0], [2, 8]),
      (a, aScale, b, bScale, negativeDivisor, [places, decimals]) => {
        const dividend = dec(a).div(dec(10).pow(aScale));
        const divisor = dec(negativeDivisor ? -b : b).div(dec(10).pow(bScale));
        const units = quotientUnitsRoundedUp(dividend, divisor, places, decimals);
        const step = 10n ** BigInt(decimals - places);
        expect(units % step).toBe(0n);
        const q = new W(dividend.toFixed()).div(new W(divisor.toFixed())).mul(new W(10n ** BigInt(places) + ''));
        const steps = units / step;
        // away from zero: |steps| - 1 < |q| <= |steps|, and the sign of the quotient
        const abs = q.abs();
        const absSteps = steps < 0n ? -steps : steps;
        expect(abs.lte(new W(absSteps.toString()))).toBe(true);
        expect(abs.gt(new W((absSteps - 1n).toString()))).toBe(true);
        if (!abs.isZero()) expect(steps < 0n).toBe(q.isNegative());
        // the same as rounding the 120-digit quotient wherever that quotient is exact
        if (dividend.gte(0) && !negativeDivisor && dividend.div(divisor).mul(divisor).eq(dividend)) {
          expect(units).toBe(unitsRoundedUp(dividend.div(divisor), places, decimals));
        }
      },
    ));
  });

  it('keeps the round-up that a 120-digit division loses', () => {
    const dividend = dec(`1.${'0'.repeat(129)}1`);
    expect(unitsRoundedUp(dividend.div(1), 8, 8)).toBe(100_000_000n);
    expect(quotientUnitsRoundedUp(dividend, dec(1), 8, 8)).toBe(100_000_001n);
    expect(quotientUnitsRoundedUp(dec('25.00'), dec('3000'), 8, 18)).toBe(833_334n * 10n ** 10n);
    expect(quotientUnitsRoundedUp(dec('-1'), dec('3'), 2, 2)).toBe(-34n);
    expect(() => quotientUnitsRoundedUp(dec(1), dec(0), 2, 2)).toThrow('division by zero');
    expect(() => quotientUnitsRoundedUp(dec(1), dec(1), 9, 8)).toThrow("precision 9 exceeds the coin's 8 decimals");
  });

  it('rounds base units up to the precision step', () => {
    expect(roundUnitsUp(1n, 8, 18)).toBe(10n ** 10n);
    expect(roundUnitsUp(10n ** 10n, 8, 18)).toBe(10n ** 10n);
    expect(roundUnitsUp(0n, 6, 6)).toBe(0n);
  });

  it('rescales base units between decimals: exact upwards, never more than the amount downwards', () => {
    expect(rescaleUnitsDown(12_345_678n, 6, 18)).toBe(12_345_678n * 10n ** 12n);
    expect(rescaleUnitsDown(12_345_678n * 10n ** 12n + 999n, 18, 6)).toBe(12_345_678n);
    expect(rescaleUnitsDown(5n, 6, 6)).toBe(5n);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.constantFrom(6, 8, 18), fc.constantFrom(6, 8, 18), (units, from, to) => {
      const out = rescaleUnitsDown(units, from, to);
      // as a quantity of the coin: never more than the input, and less by under one base unit of the target
      const scaled = (v: bigint, d: number) => v * 10n ** BigInt(36 - d);
      expect(scaled(out, to) <= scaled(units, from)).toBe(true);
      expect(scaled(units, from) - scaled(out, to) < scaled(1n, to)).toBe(true);
      if (to >= from) expect(rescaleUnitsDown(out, to, from)).toBe(units);
    }));
  });
});

describe('plainText', () => {
  it('writes what plain(dec(text)) writes (property)', () => {
    const digits = fc.string({ unit: fc.constantFrom('0', '0', '1', '5', '9'), minLength: 1, maxLength: 30 });
    fc.assert(fc.property(digits, fc.option(fc.string({ unit: fc.constantFrom('0', '0', '3'), maxLength: 20 }), { nil: undefined }), (whole, frac) => {
      const text = frac === undefined || frac === '' ? whole : `${whole}.${frac}`;
      expect(plainText(text)).toBe(plain(dec(text)));
    }));
    for (const text of ['0', '0.00', '000', '00.50', '25.00', '-0.00', '-1.50', '1e3', '0.000000001', '3000']) expect(plainText(text)).toBe(plain(dec(text)));
  });
});

describe('dollars', () => {
  it('rounds what the customer owes up to the cent and other figures half-up', () => {
    expect(usdUp('25.001').toFixed()).toBe('25.01');
    expect(usdUp('25.00').toFixed()).toBe('25');
    expect(usdHalfUp('0.125').toFixed()).toBe('0.13');
    expect(usdHalfUp('0.124999').toFixed()).toBe('0.12');
    expect(rateHalfUp('2999.999999995').toFixed()).toBe('3000');
    // half-up, not to the even digit
    expect(rateHalfUp('0.123456785').toFixed()).toBe('0.12345679');
    expect(usdHalfUp('0.145').toFixed()).toBe('0.15');
  });

  it('formats without trailing zeros, and with exactly two decimals for volumes', () => {
    expect(formatUsd('25.50')).toBe('25.5');
    expect(formatUsd('3000.00')).toBe('3000');
    expect(formatUsd2('25.5')).toBe('25.50');
    expect(formatUsd2('0')).toBe('0.00');
  });

  it('rounding up never loses a cent and never adds a whole one (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 5 }), (n, scale) => {
      const v = dec(n).div(dec(10).pow(scale));
      const up = usdUp(v);
      expect(up.gte(v)).toBe(true);
      expect(up.minus(v).lt('0.01')).toBe(true);
      expect(up.decimalPlaces()).toBeLessThanOrEqual(2);
      const half = usdHalfUp(v);
      expect(half.minus(v).abs().lte('0.005')).toBe(true);
    }));
  });

  it('accepts amount_usd as a number or decimal string with at most 2 decimals', () => {
    const value = (v: unknown) => { const r = parseAmountUsd(v); return r.ok ? r.value.toFixed() : r.reason; };
    expect(value(25)).toBe('25');
    expect(value('25.00')).toBe('25');
    expect(value(' 0.01 ')).toBe('0.01');
    expect(value(19.99)).toBe('19.99');
    // at most the maximum, the maximum itself included
    expect(value('1000000000')).toBe('1000000000');
    expect(parseAmountUsd('1000000000.01')).toEqual({ ok: false, reason: 'must be at most 1000000000' });
    expect(parseAmountUsd('10.5', '10')).toEqual({ ok: false, reason: 'must be at most 10' });
    expect(parseAmountUsd(0)).toEqual({ ok: false, reason: 'must be greater than 0' });
    expect(parseAmountUsd('-5')).toEqual({ ok: false, reason: 'must be greater than 0' });
    expect(parseAmountUsd('1.005')).toEqual({ ok: false, reason: 'has more than 2 decimals' });
    expect(parseAmountUsd('abc').ok).toBe(false);
    expect(parseAmountUsd(null).ok).toBe(false);
    expect(parseAmountUsd([25]).ok).toBe(false);
    expect(parseAmountUsd('1e30').ok).toBe(false);
    // a decimal string, as CONTRACT says and payout amounts read it: no exponent form (a JSON
    // number written 1e2 is the number 100 and is taken)
    for (const text of ['1e2', '1E2', '25e-1', '1e+2']) expect(parseAmountUsd(text), text).toEqual({ ok: false, reason: 'must be a number or a decimal string' });
    expect(value(1e2)).toBe('100');
    expect(parseAmountUsd(Number.POSITIVE_INFINITY).ok).toBe(false);
  });

  // JavaScript prints 1e-7 and 1e+21 in exponent form: a number must still answer as its decimal does
  it('answers amount_usd sent as a number as it answers its decimal string (property)', () => {
    const answer = (v: unknown) => { const r = parseAmountUsd(v); return r.ok ? r.value.toFixed() : r.reason; };
    expect(answer(1e-7)).toBe('has more than 2 decimals');
    expect(answer(1e21)).toBe('must be at most 1000000000');
    expect(answer(1e21)).toBe(answer('1000000000000000000000'));
    const exponentForm = fc.tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.integer({ min: -30, max: 30 })).map(([k, e]) => Number(`${k}e${e}`));
    fc.assert(fc.property(fc.oneof(exponentForm, fc.double({ noNaN: true, noDefaultInfinity: true })), (n) => {
      expect(answer(n)).toBe(answer(dec(n).toFixed()));
    }), { numRuns: 500 });
  });
});
