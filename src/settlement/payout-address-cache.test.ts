import { describe, expect, it } from 'vitest';
import { PayoutAddressCache } from './payout-address-cache.ts';
import type { PayoutAddressInput } from './types.ts';

const addr = (id: string) => ({ id, token: 'ETH', address: `0x${id}`, default: true, created_at: new Date(0), active_at: new Date(0) }) as PayoutAddressInput;

describe('PayoutAddressCache', () => {
  it('reads once within its time, per merchant and mode', async () => {
    const c = new PayoutAddressCache(60_000);
    let reads = 0;
    const load = async () => { reads++; return [addr('a')]; };
    expect(await c.get('m1', true, load)).toEqual([addr('a')]);
    await c.get('m1', true, load);
    await c.get('m1', false, load);
    await c.get('m2', true, load);
    expect(reads).toBe(3);
  });

  it('reads again after its time', async () => {
    const c = new PayoutAddressCache(0);
    let reads = 0;
    const load = async () => { reads++; return []; };
    await c.get('m1', true, load);
    await c.get('m1', true, load);
    expect(reads).toBe(2);
  });

  it('a change forgets the merchant\'s lists; a read that began before the change is returned but not kept', async () => {
    const c = new PayoutAddressCache(60_000);
    let list = [addr('a')];
    await c.get('m1', true, async () => list);
    list = [addr('b')];
    c.forget('m1');
    expect(await c.get('m1', true, async () => list)).toEqual([addr('b')]);
    // a slow read overtaken by a change
    let release!: () => void;
    const slow = c.get('m2', true, () => new Promise((r) => { release = () => r([addr('old')]); }));
    c.forget('m2');
    release();
    expect(await slow).toEqual([addr('old')]);
    expect(await c.get('m2', true, async () => [addr('new')])).toEqual([addr('new')]);
  });
});
