// The XRP reader against the simulated rippled, over JSON-RPC and WebSocket alike: validated ledgers
// only, tesSUCCESS payments only, delivered_amount (never a partial payment's Amount), the
// destination tag carried, transaction states, garbage never counted, failover between nodes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'xrpl';
import { startXrpSim, type XrpSim } from '../../../test/sim/xrp/server.ts';
import { injectFailedPayment, injectPartialPayment, payXrp } from '../../../test/harness/xrp.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import { XrpRpc } from './rpc.ts';
import { XrpReader } from './reader.ts';

let sim: XrpSim;
const rpcs: XrpRpc[] = [];
beforeAll(async () => { sim = await startXrpSim(); });
afterAll(async () => {
  for (const r of rpcs) r.close();
  await sim?.stop();
});

const readerOf = (urls: string[]) => {
  const rpc = new XrpRpc(new NodeEndpoints(urls), 2_000);
  rpcs.push(rpc);
  return new XrpReader(rpc);
};

describe.each(['http', 'ws'] as const)('XRP reader over %s', (transport) => {
  const url = () => (transport === 'http' ? sim.httpUrl : sim.wsUrl);

  it('reads validated ledgers: successful payments with their tag and delivered amount; failures and other tags left as they are', async () => {
    const reader = readerOf([url()]);
    const service = Wallet.generate().address;
    payXrp(sim, service, 50_000_000n);
    const tagged = payXrp(sim, service, 2_500_000n, 4242);
    const partial = injectPartialPayment(sim, service, 77, 1_000_000_000n, 1_000n);
    injectFailedPayment(sim, service, 78, 3_000_000n);
    const ledger = sim.close();

    const head = await reader.head();
    expect(head).toMatchObject({ height: BigInt(ledger.index), hash: ledger.hash, parentHash: ledger.parentHash });
    expect(head.time.getTime()).toBe((ledger.closeTime + 946_684_800) * 1000);
    const block = await reader.block(BigInt(ledger.index));
    const mine = block!.transfers.filter((t) => t.to === service);
    expect(mine).toEqual([
      expect.objectContaining({ to: service, token: 'XRP', amount: 50_000_000n }),
      { txId: tagged, to: service, tag: 4242, token: 'XRP', amount: 2_500_000n, from: expect.stringMatching(/^r/) },
      // a partial payment counts for what it delivered, never for its Amount
      { txId: partial, to: service, tag: 77, token: 'XRP', amount: 1_000n, from: expect.stringMatching(/^r/) },
    ]);
    expect(mine[0].tag).toBeUndefined();
    expect(await reader.header(BigInt(ledger.index))).toEqual({ height: head.height, hash: head.hash, parentHash: head.parentHash, time: head.time });
    expect(await reader.txState(tagged)).toEqual({ kind: 'mined', height: BigInt(ledger.index), blockHash: ledger.hash });
    expect(await reader.txState('AB'.repeat(32))).toEqual({ kind: 'unknown' });
    expect(await reader.network()).toBe('0');
    expect(reader.normalizeAddress(` ${service} `)).toBe(service);
  });

  it('a closed ledger not yet validated is above the tip', async () => {
    const reader = readerOf([url()]);
    const before = await reader.head();
    sim.ledger.validationLag = 1;
    const hash = payXrp(sim, Wallet.generate().address, 20_000_000n);
    const held = sim.close();
    try {
      expect((await reader.head()).height).toBe(before.height);
      expect(await reader.block(BigInt(held.index))).toBeNull();
      expect(await reader.header(BigInt(held.index))).toBeNull();
      expect(await reader.txState(hash)).toEqual({ kind: 'pending' });
    } finally {
      sim.validateAll();
    }
    expect((await reader.block(BigInt(held.index)))!.transfers.map((t) => t.txId)).toContain(hash);
    expect(await reader.block(BigInt(held.index + 50))).toBeNull();
  });

  it('a node answering garbage is never read; the next configured node is', async () => {
    const broken = await startXrpSim();
    broken.garbage = true;
    try {
      const reader = readerOf([transport === 'http' ? broken.httpUrl : broken.wsUrl, url()]);
      expect((await reader.head()).height).toBe(BigInt(sim.ledger.validatedIndex));
      const only = readerOf([transport === 'http' ? broken.httpUrl : broken.wsUrl]);
      await expect(only.head()).rejects.toThrow(/no node answered/);
    } finally {
      await broken.stop();
    }
  });
});

describe('XRP reader: outage', () => {
  it('a WebSocket node that goes away and comes back on its port is read again', async () => {
    const reader = readerOf([sim.wsUrl]);
    const before = await reader.head();
    await sim.stop();
    await expect(reader.head()).rejects.toThrow(/no node answered/);
    await sim.start();
    sim.close();
    expect((await reader.head()).height).toBe(before.height + 1n);
  });
});
