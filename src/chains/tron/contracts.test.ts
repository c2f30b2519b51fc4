// TRC-20 contracts missing from the Tron node (the mainnet USDT on a test network or local node):
// asked of the node once through wallet/getcontract, as the EVM reader asks for code, and such a
// token is unavailable in live mode (CONTRACT.md TOKEN_CONTRACTS), since nothing would see its deposits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58Address, startTronSim, type TronSim } from '../../../test/sim/tron/server.ts';
import { loadConfig } from '../../config.ts';
import { Catalog } from '../../payments/catalog.ts';
import { noContract } from '../../payments/coin.ts';
import type { MarketSource } from '../../market/index.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import { TronRpc } from './rpc.ts';
import { TronReader } from './reader.ts';

let sim: TronSim;
let rpc: TronRpc;
beforeAll(async () => {
  sim = await startTronSim();
  rpc = new TronRpc(new NodeEndpoints([sim.url]));
});
afterAll(async () => { await sim?.stop(); });

describe('Tron token contracts on the node', () => {
  it('a TRC-20 contract the node does not have makes its token unavailable in live mode; deployed, it is back', async () => {
    const catalog = new Catalog({} as MarketSource, loadConfig({
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-tron-contracts-')), TRON_API_URL: sim.url,
    }), async () => []);
    expect(catalog.available('USDT_TRC20', true)).toBe(true);

    // the mainnet USDT contract (no TOKEN_CONTRACTS) is not on this node
    await new TronReader(rpc, {}).network();
    expect(catalog.unavailable('USDT_TRC20', true)).toBe(noContract('USDT_TRC20'));
    expect(noContract('USDT_TRC20')).toBe('USDT_TRC20 cannot be paid in live mode right now: its token contract has no code on the tron node');
    expect(catalog.offered({ ...settings(), enabled_tokens: ['USDT_TRC20', 'TRX'] }, true)).toEqual(['TRX']);
    expect(catalog.available('USDT_TRC20', false)).toBe(true);

    // a local contract configured and deployed is there; so is the mainnet address once the node has it
    const local = base58Address(sim.chain.deployToken(6));
    await new TronReader(rpc, { USDT_TRC20: local }).network();
    expect(catalog.unavailable('USDT_TRC20', true)).toBe(noContract('USDT_TRC20')); // the catalog's contract is still the mainnet one
    sim.chain.deployToken(6, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    await new TronReader(rpc, {}).network();
    expect(catalog.available('USDT_TRC20', true)).toBe(true);
  });

  it("a configured contract whose decimals are not the token's keeps the chain from being read (amounts would be off by powers of ten), as on the EVM chains", async () => {
    const wrong = base58Address(sim.chain.deployToken(18));
    const reader = new TronReader(rpc, { USDT_TRC20: wrong });
    await expect(reader.network()).rejects.toThrow(`TOKEN_CONTRACTS: USDT_TRC20 at ${wrong} has 18 decimals, the token has 6`);
    // still refused on the next pass, not read meanwhile
    await expect(reader.network()).rejects.toThrow('has 18 decimals');
    // the token's own decimals pass
    await new TronReader(rpc, { USDT_TRC20: base58Address(sim.chain.deployToken(6)) }).network();
  });
});

const settings = () => ({
  fee_bps: 100, underpaid_tolerance_bps: 50, accept_other_assets: false, settlement: 'direct' as const, payout_schedule: 'daily' as const,
  fees_paid_by_customer: true, convert_into: 'cheapest' as const, hide_below_minimum: false, enabled_tokens: [] as string[],
});
