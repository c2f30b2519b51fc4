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

// Hand-built blocks with known answers: the property above compares blockTransfers with itself
// (filtered before or after), so it cannot see a transfer it builds wrong for both.
describe('Tron blockTransfers of known blocks', () => {
  const A = `41${'ab'.repeat(19)}01`;
  const B = `41${'ab'.repeat(19)}02`;
  const SENDER = `41${'cd'.repeat(20)}`;
  const id = (n: number) => n.toString(16).padStart(64, '0');
  const trx = (n: number, to: string, amount: unknown, contractRet = 'SUCCESS') =>
    ({ txID: id(n), ret: [{ contractRet }], raw_data: { contract: [{ type: 'TransferContract', parameter: { value: { owner_address: SENDER, to_address: to, amount } } }] } });
  const log = (to: string, amount: number, contract = CONTRACT) =>
    ({ address: contract, topics: [TRANSFER_TOPIC, topic(SENDER.slice(2)), topic(to.slice(2))], data: word(amount) });
  const info = (n: number, logs: unknown[], receipt = 'SUCCESS', result?: string) =>
    ({ id: id(n), receipt: { result: receipt }, ...(result ? { result } : {}), log: logs });

  it('counts a TRX transfer that succeeded, with its amount, sender and receiver', () => {
    expect(blockTransfers([trx(1, A, 1_500_000)], [], contracts)).toEqual([{ txId: id(1), to: A, token: 'TRX', amount: 1_500_000n, from: SENDER }]);
  });

  it('never counts a TRX transfer that failed, nor one of nothing', () => {
    for (const ret of ['REVERT', 'OUT_OF_ENERGY', 'OUT_OF_TIME']) expect(blockTransfers([trx(1, A, 1_500_000, ret)], [], contracts), ret).toEqual([]);
    expect(blockTransfers([trx(2, A, 0)], [], contracts)).toEqual([]);
    expect(blockTransfers([trx(3, A, '1500000')], [], contracts)).toEqual([]);
  });

  it('counts USDT from a succeeded call\'s Transfer logs of the configured contract, several to one address summed', () => {
    const infos = [info(1, [log(A, 2_000_000), log(A, 500_000), log(B, 7), log(A, 9, 'ff'.repeat(20))])];
    expect(blockTransfers([], infos, contracts)).toEqual([
      { txId: id(1), to: A, token: 'USDT_TRC20', amount: 2_500_000n, from: SENDER },
      { txId: id(1), to: B, token: 'USDT_TRC20', amount: 7n, from: SENDER },
    ]);
  });

  it('keeps two transactions paying one address apart: each is its own deposit of its own amount', () => {
    // summing across them would credit the first with money it never moved and lose the second's id
    const infos = [info(1, [log(A, 2_000_000)]), info(2, [log(A, 500_000)])];
    expect(blockTransfers([trx(3, A, 1_000), trx(4, A, 2_000)], infos, contracts)).toEqual([
      { txId: id(3), to: A, token: 'TRX', amount: 1_000n, from: SENDER },
      { txId: id(4), to: A, token: 'TRX', amount: 2_000n, from: SENDER },
      { txId: id(1), to: A, token: 'USDT_TRC20', amount: 2_000_000n, from: SENDER },
      { txId: id(2), to: A, token: 'USDT_TRC20', amount: 500_000n, from: SENDER },
    ]);
  });

  it('never counts the logs of a failed call: receipt not SUCCESS, or result FAILED', () => {
    expect(blockTransfers([], [info(1, [log(A, 2_000_000)], 'REVERT')], contracts)).toEqual([]);
    expect(blockTransfers([], [info(2, [log(A, 2_000_000)], 'OUT_OF_ENERGY')], contracts)).toEqual([]);
    expect(blockTransfers([], [info(3, [log(A, 2_000_000)], 'SUCCESS', 'FAILED')], contracts)).toEqual([]);
    expect(blockTransfers([], [info(4, [log(A, 0)])], contracts)).toEqual([]);
  });

  it('never counts a TRC-10 token (an asset named USDT), nor TRX a contract moved by an internal transaction, nor a fake contract\'s log', () => {
    const asset = { txID: id(5), ret: [{ contractRet: 'SUCCESS' }], raw_data: { contract: [{ type: 'TransferAssetContract', parameter: { value: { asset_name: Buffer.from('USDT').toString('hex'), owner_address: SENDER, to_address: A, amount: 9_000_000 } } }] } };
    const call = { txID: id(6), ret: [{ contractRet: 'SUCCESS' }], raw_data: { contract: [{ type: 'TriggerSmartContract', parameter: { value: { owner_address: SENDER, contract_address: B, call_value: 7_000_000, data: 'a9059cbb' } } }] } };
    const internal = { ...info(6, []), internal_transactions: [{ caller_address: B, transferTo_address: A, callValueInfo: [{ callValue: 7_000_000 }], note: Buffer.from('call').toString('hex') }] };
    const fake = info(7, [log(A, 5_000_000, 'ee'.repeat(20))]);
    expect(blockTransfers([asset, call], [internal, fake], contracts)).toEqual([]);
  });
});
