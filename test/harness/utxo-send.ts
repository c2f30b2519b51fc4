// Fixtures of the Bitcoin-family sending tests on litecoind regtest: the gateway with the node as
// LITECOIN_RPC_URL (its live addresses in regtest format once the node has told its network), a
// merchant whose live LTC payout address belongs to the node's own `miner` wallet (so what it
// received can be asked), and the worker driven pass by pass with a block mined in between.
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { Database } from '../../src/platform/db/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Logger } from '../../src/platform/logger.ts';
import { startTestApp } from './app.ts';
import { randomIp, signupAccount, tokenHeader } from './accounts.ts';
import type { ChainApp, Merchant } from './chain-send.ts';
import type { LitecoinNode } from './litecoind.ts';

export interface LtcApp extends Omit<ChainApp, 'nodes'> { node: LitecoinNode }

export async function startLtcApp(db: Database, node: LitecoinNode, env: Record<string, string> = {}, opts: { log?: Logger } = {}): Promise<LtcApp> {
  const clock = new ManualClock(new Date());
  const t = await startTestApp(db, {
    env: {
      LITECOIN_RPC_URL: node.url, CONFIRMATIONS_LITECOIN: '2', SETTLEMENT_DELAY_S: '0', CHAIN_POLL_MS: '100',
      WALLET_MNEMONIC: generateMnemonic(wordlist), ...env,
    },
    clock, ...opts,
  });
  // the network the node serves decides the format of live addresses
  await t.services.sending.utxoReaders.litecoin!.network();
  return { ...t, clock, node };
}

/**
 * A live merchant whose LTC payout address is a fresh address of the node's miner wallet, or
 * `payout` (an address the node's wallet does not know: it never re-broadcasts what pays it);
 * `signup`: more of the signup's body (a `referral_code`).
 */
export async function ltcMerchant(t: LtcApp, payoutAddress?: string, signup: Record<string, unknown> = {}): Promise<Merchant & { payout: string }> {
  const acct = await signupAccount(t.app, signup);
  const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
  if (live.statusCode !== 200) throw new Error(`live mode: ${live.statusCode} ${live.body}`);
  const payout = payoutAddress ?? await t.node.minerAddress();
  const res = await t.app.inject({
    method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(acct.accessToken),
    payload: { token: 'LTC', address: payout, password: acct.password },
  });
  if (res.statusCode !== 201) throw new Error(`payout address: ${res.statusCode} ${res.body}`);
  return { acct, addresses: { LTC: payout }, addressIds: { LTC: res.json().address.id }, payout };
}

/** Runs the transfer worker, mining a block between passes, until `done()` holds. */
export async function driveLtc(t: LtcApp, done: () => Promise<boolean>, max = 30): Promise<number> {
  for (let i = 0; i < max; i++) {
    await t.services.sending.transfers.runOnce();
    await t.platform.outbox.drainNow();
    if (await done()) return i + 1;
    await t.node.mine(1);
  }
  throw new Error(`not done after ${max} passes`);
}

/** Base units the node's miner wallet received on `address` (confirmed). */
export async function receivedBy(node: LitecoinNode, address: string): Promise<bigint> {
  const ltc = await node.rpc<number>('getreceivedbyaddress', [address, 1], 'miner');
  const [whole, frac = ''] = ltc.toFixed(8).split('.');
  return BigInt(whole) * 100_000_000n + BigInt(frac.padEnd(8, '0'));
}

/** One pass of the chain watchers, then the outbox handed on (settlement, webhooks). */
export async function watchLtc(t: LtcApp): Promise<void> {
  await t.services.watching.runOnce();
  await t.platform.outbox.drainNow();
}

/** The chain's row of /admin/chains. */
export async function chainRow(t: LtcApp, chain: string): Promise<Record<string, unknown>> {
  const res = await t.app.inject({ method: 'GET', url: '/admin/chains', headers: { authorization: 'Bearer test-admin-token' } });
  return (res.json().chains as Array<Record<string, unknown>>).find((c) => c.chain === chain)!;
}

export const ltcText = (n: bigint): string => `${n / 100_000_000n}.${String(n % 100_000_000n).padStart(8, '0')}`;

/** Base units the node's UTXO set holds for `address` (any address, no wallet). */
export async function unspentAt(node: LitecoinNode, address: string): Promise<bigint> {
  const { total_amount: ltc } = await node.rpc<{ total_amount: number }>('scantxoutset', ['start', [`addr(${address})`]]);
  const [whole, frac = ''] = ltc.toFixed(8).split('.');
  return BigInt(whole) * 100_000_000n + BigInt(frac.padEnd(8, '0'));
}

/**
 * Pays `address` from the node's miner, mines the transaction and reports it as the watcher would
 * (recorded at 1 confirmation, then final unless `final` is false); answers its txid.
 */
export async function payAndReportLtc(t: Pick<LtcApp, 'services' | 'platform' | 'clock'>, node: LitecoinNode, address: string, amount: bigint, final = true): Promise<string> {
  const txid = await node.pay(address, ltcText(amount));
  const [hash] = await node.mine(1);
  const { height } = await node.rpc<{ height: number }>('getblockheader', [hash]);
  const intake = t.services.payments.intake;
  await intake.recordDeposit({ address }, { txId: txid, token: 'LTC', amount, confirmations: 1, block: height, at: t.clock.now() });
  if (final) await intake.markFinal({ address }, txid, t.clock.now());
  await t.platform.outbox.drainNow();
  return txid;
}
