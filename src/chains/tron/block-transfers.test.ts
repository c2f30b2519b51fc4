// The transfers of a Tron block given the watched addresses: exactly those matchTransfers keeps from
// the whole block (same transfers, same sums), with nothing built for the others.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AddressIndex } from '../watch/address-index.ts';
import { matchTransfers } from '../watch/deposit-feed.ts';
import { blockTransfers, TRANSFER_TOPIC } from './block-transfers.ts';

const CONTRACT = 'a614f803b6fd780986a42c78ec9c7f77e6ded13c';
const contracts = new Map([[CONTRACT, 'USDT_TRC20' as const]]);
const topic = (a: string) => a.padStart(64, '0');
const word = (n: number) => n.toString(16).padStart(64, '0');

describe('Tron blockTransfers with the watched addresses', () => {
  it('keeps exactly what matching the whole block keeps', () => {
    const addr = fc.constantFrom(...Array.from({ length: 6 }, (_, i) => `${'ab'.repeat(19)}0${i}`));
    const log = fc.record({ to: addr, from: addr, amount: fc.integer({ min: 0, max: 1_000 }), upper: fc.boolean(), contract: fc.constantFrom(CONTRACT, 'ff'.repeat(20)) });
    const tx = fc.record({ logs: fc.array(log, { maxLength: 3 }), ok: fc.boolean(), trxTo: fc.option(addr), trx: fc.integer({ min: 0, max: 50 }) });
    fc.assert(fc.property(fc.array(tx, { maxLength: 12 }), fc.subarray([0, 1, 2, 3, 4, 5]), (block, watchedIdx) => {
      const txs: unknown[] = [];
      const infos: unknown[] = [];
      block.forEach((t, i) => {
        const id = i.toString(16).padStart(64, '0');
        if (t.trxTo) txs.push({ txID: id, ret: [{ contractRet: t.ok ? 'SUCCESS' : 'REVERT' }], raw_data: { contract: [{ type: 'TransferContract', parameter: { value: { owner_address: `41${t.trxTo}`, to_address: `41${t.trxTo}`, amount: t.trx } } }] } });
        infos.push({
          id, receipt: { result: t.ok ? 'SUCCESS' : 'REVERT' },
          log: t.logs.map((l) => ({ address: l.contract, topics: [TRANSFER_TOPIC, topic(l.from), topic(l.upper ? l.to.toUpperCase() : l.to)], data: word(l.amount) })),
        });
      });
      const index = new AddressIndex();
      for (const i of watchedIdx) index.add(`41${'ab'.repeat(19)}0${i}`);
      expect(blockTransfers(txs, infos, contracts, index)).toEqual(matchTransfers(index, blockTransfers(txs, infos, contracts)));
    }), { numRuns: 200 });
  });
});
