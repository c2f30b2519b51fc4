// TRC-20 contracts missing from the Tron node (the mainnet USDT on a test network or local node):
// asked of the node through wallet/getcontract as the EVM reader asks for code (at start, and every few minutes while missing), and such a
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
import { TronFamily } from './family.ts';
import { WalletKeys } from '../wallets/keys.ts';
import { TEST_MNEMONIC } from '../../../test/harness/app.ts';
import { ManualClock } from '../../platform/clock.ts';
import { MISSING_CONTRACT_RECHECK_MS } from '../../tokens/index.ts';
import type { TransferRow } from '../transfers/schema.ts';
import pino from 'pino';
import crypto from 'node:crypto';

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

describe('a Tron token contract deployed after the gateway started', () => {
  it('is asked of the node again every few minutes while missing: once there, its token is watched and available in live mode without a restart, and that is logged', async () => {
    // a configured contract the node does not hold yet
    const local = base58Address(`41${crypto.randomBytes(20).toString('hex')}`);
    const catalog = new Catalog({} as MarketSource, loadConfig({
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-tron-contracts-')), TRON_API_URL: sim.url, TOKEN_CONTRACTS: `USDT_TRC20=${local}`,
    }), async () => []);
    const lines: Array<{ level: number; msg: string; token?: string }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line)); } });
    const clock = new ManualClock();
    const reader = new TronReader(rpc, { USDT_TRC20: local }, log, clock);
    await reader.network();
    expect(catalog.unavailable('USDT_TRC20', true)).toBe(noContract('USDT_TRC20'));
    expect(lines.filter((l) => l.level === 40).map((l) => l.token)).toEqual(['USDT_TRC20']);

    // the operator deploys it: not asked again on every pass (the watcher's poll), so not seen yet
    sim.chain.deployToken(6, local);
    await reader.network();
    expect(catalog.unavailable('USDT_TRC20', true)).toBe(noContract('USDT_TRC20'));
    clock.advance(MISSING_CONTRACT_RECHECK_MS - 1);
    await reader.network();
    expect(catalog.unavailable('USDT_TRC20', true)).toBe(noContract('USDT_TRC20'));

    // the next check finds it: available in live mode, said once, at info, and its transfers read
    clock.advance(1);
    await reader.network();
    expect(catalog.available('USDT_TRC20', true)).toBe(true);
    const back = lines.filter((l) => l.msg.includes('now on the node'));
    expect(back).toMatchObject([{ level: 30, token: 'USDT_TRC20' }]);
    // still warned of once only
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);

    const keys = new WalletKeys(TEST_MNEMONIC);
    const hot = keys.hotAddress('tron', true);
    sim.chain.fund(hot, 100_000_000n);
    sim.chain.mint(local, hot, 10_000_000n);
    sim.chain.mine(1);
    const family = new TronFamily(rpc, keys, { USDT_TRC20: local });
    const to = keys.deposit('tron', true, 9).address;
    const now = new Date();
    const t = {
      id: 'trf_test', seq: 1, chain: 'tron', livemode: true, purpose: 'settlement', token: 'USDT_TRC20', fromAddress: hot, fromRole: 'hot', fromIndex: null,
      toAddress: to, toTag: null, amount: 2_500_000n, paysOwnFee: false, reference: 'stl_test', dependsOn: null, status: 'recorded', waiting: null, nonce: null,
      uncertain: false, txId: null, block: null, sentAmount: null, feesPaid: 0n, minedFee: null, failures: 0, replacements: 0, nextAt: now,
      lastError: null, createdAt: now, updatedAt: now, finalAt: null,
    } as TransferRow;
    const prep = await family.prepare(t, { feesPaidBefore: 0n, unsentFromSender: [] });
    if (prep.kind !== 'ready') throw new Error(`not ready: ${JSON.stringify(prep)}`);
    const signed = await prep.sign(null);
    expect(await family.broadcast(signed.raw)).toEqual({ kind: 'accepted' });
    const [b] = sim.chain.mine(1);
    const block = await reader.block(BigInt(b.number));
    expect(block!.transfers.filter((x) => x.token === 'USDT_TRC20')).toMatchObject([{ txId: signed.txId, to: reader.normalizeAddress(to), amount: 2_500_000n }]);

    // found, it is not asked again
    clock.advance(MISSING_CONTRACT_RECHECK_MS * 3);
    const before = sim.calls.length;
    await reader.network();
    expect(sim.calls.slice(before).filter((c) => c.includes('getcontract'))).toEqual([]);
    expect(lines.filter((l) => l.msg.includes('now on the node'))).toHaveLength(1);
  });
});

const settings = () => ({
  fee_bps: 100, underpaid_tolerance_bps: 50, accept_other_assets: false, settlement: 'direct' as const, payout_schedule: 'daily' as const,
  fees_paid_by_customer: true, convert_into: 'cheapest' as const, hide_below_minimum: false, enabled_tokens: [] as string[],
});
