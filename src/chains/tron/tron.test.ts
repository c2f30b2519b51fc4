// Tron reader and transfer family against the simulated java-tron (which checks every transaction
// with tronweb's own protobuf code and recovers its signer): TRX from block transactions, USDT
// from Transfer logs of the configured contract only, failed calls never counted, the solidified
// block; transfers signed locally, a TRC-20 transfer from an address without TRX asking for a top-up,
// what was burnt read back, and an expired transaction built again only once it can never be mined.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronWeb } from 'tronweb';
import { base58Address, startTronSim, type TronSim } from '../../../test/sim/tron/server.ts';
import { freePort } from '../../../test/harness/process.ts';
import { TEST_MNEMONIC } from '../../../test/harness/app.ts';
import { NodeEndpoints } from '../rpc/endpoints.ts';
import { WalletKeys } from '../wallets/keys.ts';
import type { AttemptRow, TransferRow } from '../transfers/schema.ts';
import type { SignedTx } from '../transfers/types.ts';
import { TronRpc } from './rpc.ts';
import { TronReader } from './reader.ts';
import { blockTransfers } from './block-transfers.ts';
import { EXPIRATION_MS, TronFamily, tronBroadcastOutcome } from './family.ts';

let sim: TronSim;
let usdt: string;
let reader: TronReader;
let family: TronFamily;
const keys = new WalletKeys(TEST_MNEMONIC);
const hot = keys.hotAddress('tron', true);
const deposit = keys.deposit('tron', true, 3).address;
let clock = Date.now();

const fresh = async () => ((await TronWeb.createAccount()) as unknown as { address: { base58: string } }).address.base58;

beforeAll(async () => {
  sim = await startTronSim(() => clock);
  sim.chain.solidityLag = 2;
  usdt = base58Address(sim.chain.deployToken(6));
  const rpc = new TronRpc(new NodeEndpoints([sim.url]));
  reader = new TronReader(rpc, { USDT_TRC20: usdt });
  family = new TronFamily(rpc, keys, { USDT_TRC20: usdt });
  sim.chain.fund(hot, 500_000_000n);
  sim.chain.mine(1);
});
afterAll(async () => { await sim?.stop(); });

const now = new Date();
function transfer(t: Partial<TransferRow>): TransferRow {
  return {
    id: 'trf_test', seq: 1, chain: 'tron', livemode: true, purpose: 'settlement', token: 'TRX', fromAddress: hot, fromRole: 'hot', fromIndex: null,
    toAddress: hot, toTag: null, amount: 0n, paysOwnFee: false, reference: 'stl_test', dependsOn: null, status: 'recorded', waiting: null, nonce: null,
    uncertain: false, txId: null, block: null, sentAmount: null, feesPaid: 0n, minedFee: null, failures: 0, replacements: 0, nextAt: now,
    lastError: null, createdAt: now, updatedAt: now, finalAt: null, ...t,
  };
}
const ctx = { feesPaidBefore: 0n, unsentFromSender: [] };
const attempt = (s: SignedTx): AttemptRow => ({ transferId: 'trf_test', n: 1, txId: s.txId, raw: s.raw, nonce: s.nonce, value: s.value, fee: s.fee, feeReserve: s.feeReserve, createdAt: now, broadcastAt: null });

async function send(t: TransferRow): Promise<SignedTx> {
  const prep = await family.prepare(t, ctx);
  if (prep.kind !== 'ready') throw new Error(`not ready: ${JSON.stringify(prep)}`);
  const s = await prep.sign(null);
  expect(await family.broadcast(s.raw)).toEqual({ kind: 'accepted' });
  return s;
}

describe('Tron', () => {
  it('a TRX settlement from the hot wallet: exactly the amount, the account creation burnt and read back', async () => {
    const to = await fresh();
    const s = await send(transfer({ toAddress: to, amount: 7_000_000n }));
    expect(await family.known(s.txId)).toBe(true);
    expect(await family.inclusion([s.txId])).toBeNull();
    const [b] = sim.chain.mine(1);
    expect(await family.tip()).toBe(BigInt(b.number));
    expect(await family.inclusion([s.txId])).toEqual({ txId: s.txId, block: BigInt(b.number), ok: true, feePaid: 1_100_000n });
    expect(sim.chain.account(to)!.balance).toBe(7_000_000n);

    const block = await reader.block(BigInt(b.number));
    // addresses in their normalized (hex) form: matching a block encodes nothing
    expect(block!.transfers).toEqual([{ txId: s.txId, to: reader.normalizeAddress(to), token: 'TRX', amount: 7_000_000n, from: reader.normalizeAddress(hot) }]);
    expect(await reader.txState(s.txId)).toEqual({ kind: 'mined', height: BigInt(b.number), blockHash: block!.hash });
    expect(await reader.txState('ab'.repeat(32))).toEqual({ kind: 'unknown' });
  });

  it('USDT from Transfer logs of the configured contract only; a failed call is never counted', async () => {
    sim.chain.mint(usdt, hot, 100_000_000n);
    const other = base58Address(sim.chain.deployToken(6));
    sim.chain.mint(other, hot, 100_000_000n);
    const to = await fresh();
    const ok = await send(transfer({ token: 'USDT_TRC20', toAddress: to, amount: 25_500_000n }));
    // a token that is not configured: its logs are not USDT
    const foreign = new TronFamily(new TronRpc(new NodeEndpoints([sim.url])), keys, { USDT_TRC20: other });
    const p = await foreign.prepare(transfer({ token: 'USDT_TRC20', toAddress: to, amount: 1_000_000n }), ctx);
    if (p.kind !== 'ready') throw new Error(p.kind);
    const foreignTx = await p.sign(null);
    await foreign.broadcast(foreignTx.raw);
    const [b] = sim.chain.mine(1);
    const block = await reader.block(BigInt(b.number));
    expect(block!.transfers).toEqual([{ txId: ok.txId, to: reader.normalizeAddress(to), token: 'USDT_TRC20', amount: 25_500_000n, from: reader.normalizeAddress(hot) }]);
    const inc = await family.inclusion([ok.txId]);
    // energy burnt at the chain's price: what the transfer cost
    const burnt = (sim.chain.block(b.number)!.infos as Array<{ id: string; fee?: number }>).find((i) => i.id === ok.txId)!.fee!;
    expect(burnt).toBeGreaterThan(0);
    expect(inc).toEqual({ txId: ok.txId, block: BigInt(b.number), ok: true, feePaid: BigInt(burnt) });
    expect(sim.chain.tokenBalance(usdt, to)).toBe(25_500_000n);
    // the same block's infos, but the call failed (REVERT / OUT_OF_ENERGY): no transfer
    const infos = sim.chain.block(b.number)!.infos.map((i) => ({ ...i, result: 'FAILED', receipt: { ...(i.receipt as object), result: 'REVERT' } }));
    const contracts = new Map([[TronWeb.address.toHex(usdt).slice(2).toLowerCase(), 'USDT_TRC20' as const]]);
    expect(blockTransfers([], infos, contracts)).toEqual([]);
    const reverted = sim.chain.block(b.number)!.txs.map((x) => ({ ...x, ret: [{ contractRet: 'REVERT' }] }));
    expect(blockTransfers(reverted, sim.chain.block(b.number)!.infos, new Map()).filter((x) => x.token === 'TRX')).toEqual([]);
  });

  it('a token transfer mined but reverted (the sender\'s tokens spent first) is conflicted: it moved nothing and never will', async () => {
    // two transfers of the hot wallet's whole balance of a token, signed while it held it: the second is mined and reverts
    const token = base58Address(sim.chain.deployToken(6));
    sim.chain.mint(token, hot, 1_000_000n);
    const other = new TronFamily(new TronRpc(new NodeEndpoints([sim.url])), keys, { USDT_TRC20: token });
    const signed: SignedTx[] = [];
    for (let i = 0; i < 2; i++) {
      const p = await other.prepare(transfer({ token: 'USDT_TRC20', toAddress: await fresh(), amount: 1_000_000n }), ctx);
      if (p.kind !== 'ready') throw new Error(p.kind);
      signed.push(await p.sign(null));
    }
    for (const x of signed) await other.broadcast(x.raw);
    const s = signed[1];
    const [b] = sim.chain.mine(1);
    expect(await reader.txState(signed[0].txId)).toMatchObject({ kind: 'mined' });
    expect((sim.chain.block(b.number)!.infos as Array<{ id: string; result?: string }>).find((i) => i.id === s.txId)).toMatchObject({ result: 'FAILED' });
    expect(await reader.txState(s.txId)).toEqual({ kind: 'conflicted' });
    // the sender reads the failure back with what the chain says of it
    expect(await other.inclusion([s.txId])).toMatchObject({ txId: s.txId, ok: false, failure: 'REVERT (REVERT opcode executed)' });
  });

  it('a token deposit address without TRX asks for a top-up covering its transfers; then sends', async () => {
    sim.chain.mint(usdt, deposit, 40_000_000n);
    sim.chain.mine(1);
    const t = transfer({ fromAddress: deposit, fromRole: 'deposit', fromIndex: 3, token: 'USDT_TRC20', toAddress: await fresh(), amount: 30_000_000n });
    const prep = await family.prepare(t, { feesPaidBefore: 0n, unsentFromSender: [t, transfer({ ...t, id: 'trf_2', purpose: 'service_fee', toAddress: hot, amount: 10_000_000n })] });
    expect(prep.kind).toBe('top_up');
    const amount = (prep as { amount: bigint }).amount;
    await send(transfer({ toAddress: deposit, amount }));
    sim.chain.mine(1);
    const s = await send(t);
    const [b] = sim.chain.mine(1);
    expect(await family.inclusion([s.txId])).toMatchObject({ ok: true, block: BigInt(b.number) });
    expect(sim.chain.tokenBalance(usdt, t.toAddress)).toBe(30_000_000n);
    // the second one is covered by the same top-up
    expect((await family.prepare(transfer({ ...t, id: 'trf_2', purpose: 'service_fee', toAddress: hot, amount: 10_000_000n }), ctx)).kind).toBe('ready');
  });

  it('a lost transaction is built again only once a block\'s time passed its expiration', async () => {
    const to = await fresh();
    const t = transfer({ toAddress: to, amount: 2_000_000n });
    const prep = await family.prepare(t, ctx);
    if (prep.kind !== 'ready') throw new Error(prep.kind);
    const lost = await prep.sign(null);
    await family.tip();
    expect(family.expired(attempt(lost))).toBe(false);
    expect(await family.replace(t, attempt(lost), ctx)).toBeNull();
    clock = sim.chain.head.timestamp + EXPIRATION_MS + 10_000;
    sim.chain.mine(1);
    await family.tip();
    expect(family.expired(attempt(lost))).toBe(true);
    expect((await family.broadcast(lost.raw)).kind).toBe('refused');
    const again = await family.replace(t, attempt(lost), ctx);
    expect(again!.txId).not.toBe(lost.txId);
    expect(await family.broadcast(again!.raw)).toEqual({ kind: 'accepted' });
    sim.chain.mine(1);
    expect(await family.inclusion([lost.txId, again!.txId])).toMatchObject({ txId: again!.txId, ok: true });
    expect(sim.chain.account(to)!.balance).toBe(2_000_000n);
  });

  it('quotes moving a deposit out at the chain\'s current prices', async () => {
    // bandwidth at 1,000 sun a byte, energy at the chain's price, a new account's 1.1 TRX
    expect(await family.quoteSweepFee('TRX')).toBe(2n * 274n * 1000n + 1_100_000n);
    expect(await family.quoteSweepFee('USDT_TRC20')).toBe(2n * (354n * 1000n + 65_000n * sim.chain.energyPrice) + 274n * 1000n + 1_100_000n);
    sim.chain.energyPrice = 420n;
    try {
      expect(await family.quoteSweepFee('USDT_TRC20')).toBe(2n * (354n * 1000n + 65_000n * 420n) + 274n * 1000n + 1_100_000n);
    } finally {
      sim.chain.energyPrice = 100n;
    }
  });

  it('the solidified block, the network, garbage refused, answers of broadcast read', async () => {
    expect(await reader.finalHeight()).toBe(BigInt(sim.chain.solid.number));
    expect(await reader.network()).toBe(sim.chain.blocks[0].blockID);
    const hotHex = TronWeb.address.toHex(hot).toLowerCase();
    expect(reader.normalizeAddress(hot)).toBe(hotHex);
    expect(reader.normalizeAddress(hotHex.toUpperCase().replace(/^41/, '41'))).toBe(hotHex);
    expect(reader.chainAddress(hotHex)).toBe(hot);
    expect(await reader.block(10_000n)).toBeNull();
    sim.garbage = true;
    try {
      await expect(reader.head()).rejects.toThrow(/no node answered/);
    } finally {
      sim.garbage = false;
    }
    expect(tronBroadcastOutcome({ code: 'DUP_TRANSACTION_ERROR', message: '' }).kind).toBe('accepted');
    expect(tronBroadcastOutcome({ code: 'SIGERROR', message: Buffer.from('bad').toString('hex') })).toEqual({ kind: 'refused', why: 'the Tron node refused it: SIGERROR bad' });
    expect(tronBroadcastOutcome({ code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('balance is not sufficient.').toString('hex') }).kind).toBe('no_funds');
  });

  it('a refusal from the Tron node after a node that failed to answer is uncertain: that node may have taken the transaction', async () => {
    const to = await fresh();
    const prep = await family.prepare(transfer({ toAddress: to, amount: 1_000_000n, token: 'TRX' }), ctx);
    if (prep.kind !== 'ready') throw new Error(prep.kind);
    const s = await prep.sign(null);
    // its signature broken: the node refuses it in its own words
    const tx = JSON.parse(s.raw) as { signature: string[] };
    tx.signature = [tx.signature[0].replace(/^../, (h) => (h === '00' ? '11' : '00'))];
    const forged = JSON.stringify(tx);
    expect((await family.broadcast(forged)).kind).toBe('refused');
    const dead = `http://127.0.0.1:${await freePort()}`;
    const failover = new TronFamily(new TronRpc(new NodeEndpoints([dead, sim.url])), keys, { USDT_TRC20: usdt });
    expect(await failover.broadcast(forged)).toMatchObject({ kind: 'uncertain', why: expect.stringContaining(dead) });
  });
});
