// Fixtures of the sending tests on anvil: the gateway with both EVM nodes configured, a merchant with
// live payout addresses, a live payment paid by a customer on chain and reported through
// DepositIntake exactly as the chain watcher does (recordDeposit, then markFinal), and the worker
// driven pass by pass with a block mined in between (no real clock waits).
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { erc20Abi, type Address, type Hex } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { startTestApp, type TestApp } from './app.ts';
import { randomIp, signupAccount, tokenHeader, keyHeader, uid, type Account } from './accounts.ts';
import { deployTestToken, testTokenAbi, type AnvilNode } from './anvil.ts';
import type { Json } from './payments.ts';
import type { Database } from '../../src/platform/db/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Logger } from '../../src/platform/logger.ts';
import { parseUnits } from '../../src/money/index.ts';
import { TOKEN_DEFS, type TokenSymbol } from '../../src/tokens/index.ts';

export const ADMIN = { authorization: 'Bearer test-admin-token' };

export interface EvmNodes { eth: AnvilNode; bsc: AnvilNode; usdtErc20: Address; usdtBep20: Address }

/** Deploys the test USDT on each node: 6 decimals on Ethereum, 18 on BNB Smart Chain, as on mainnet. */
export async function deployTokens(eth: AnvilNode, bsc: AnvilNode): Promise<EvmNodes> {
  const [usdtErc20, usdtBep20] = await Promise.all([deployTestToken(eth, { decimals: 6 }), deployTestToken(bsc, { decimals: 18 })]);
  return { eth, bsc, usdtErc20, usdtBep20 };
}

export function chainEnv(n: EvmNodes, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ETHEREUM_RPC_URL: n.eth.url, BSC_RPC_URL: n.bsc.url,
    TOKEN_CONTRACTS: `USDT_ERC20=${n.usdtErc20},USDT_BEP20=${n.usdtBep20}`,
    CONFIRMATIONS_ETHEREUM: '3', CONFIRMATIONS_BSC: '3', SETTLEMENT_DELAY_S: '0', CHAIN_POLL_MS: '100',
    // a wallet of its own per app: deposit addresses and hot wallets never shared between test apps on one node
    WALLET_MNEMONIC: generateMnemonic(wordlist),
    ...extra,
  };
}

export interface ChainApp extends TestApp { clock: ManualClock; nodes: EvmNodes }

export async function startChainApp(db: Database, nodes: EvmNodes, env: Record<string, string> = {}, opts: { log?: Logger } = {}): Promise<ChainApp> {
  const clock = new ManualClock(new Date());
  const t = await startTestApp(db, { env: chainEnv(nodes, env), clock, ...opts });
  return { ...t, clock, nodes };
}

export const nodeOf = (n: EvmNodes, token: TokenSymbol): AnvilNode => (TOKEN_DEFS[token].chain === 'bsc' ? n.bsc : n.eth);
export const contractOf = (n: EvmNodes, token: TokenSymbol): Address | null =>
  token === 'USDT_ERC20' ? n.usdtErc20 : token === 'USDT_BEP20' ? n.usdtBep20 : null;

/** A fresh address nobody holds a key of here: a merchant's wallet. */
export const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** Balance of `address` in `token` on its node, in base units. */
export async function balanceOf(n: EvmNodes, token: TokenSymbol, address: string): Promise<bigint> {
  const node = nodeOf(n, token);
  const contract = contractOf(n, token);
  if (!contract) return node.client.getBalance({ address: address as Address });
  return node.client.readContract({ address: contract, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });
}

/** The funder sends `amount` of `token` to `to` (minting test tokens first); returns the mined transaction. */
export async function pay(n: EvmNodes, token: TokenSymbol, to: string, amount: bigint): Promise<{ hash: Hex; block: bigint }> {
  const node = nodeOf(n, token);
  const contract = contractOf(n, token);
  let hash: Hex;
  if (!contract) {
    hash = await node.wallet.sendTransaction({ account: node.funder, to: to as Address, value: amount, chain: null });
  } else {
    const mint = await node.wallet.writeContract({ address: contract, abi: testTokenAbi(), functionName: 'mint', args: [node.funder.address, amount], chain: null, account: node.funder });
    await node.client.waitForTransactionReceipt({ hash: mint, pollingInterval: 20 });
    hash = await node.wallet.writeContract({ address: contract, abi: erc20Abi, functionName: 'transfer', args: [to as Address, amount], chain: null, account: node.funder });
  }
  const receipt = await node.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return { hash, block: receipt.blockNumber };
}

export interface Merchant { acct: Account; addresses: Partial<Record<TokenSymbol, string>>; addressIds: Partial<Record<TokenSymbol, string>> }

/** A merchant in live mode with a live payout address (a fresh one) for each token given. */
export async function merchantWithAddresses(t: TestApp, tokens: readonly TokenSymbol[]): Promise<Merchant> {
  const acct = await signupAccount(t.app);
  const live = await t.app.inject({ method: 'POST', url: '/merchant/live', headers: tokenHeader(acct.accessToken), payload: { enabled: true } });
  if (live.statusCode !== 200) throw new Error(`live mode: ${live.statusCode} ${live.body}`);
  const m: Merchant = { acct, addresses: {}, addressIds: {} };
  for (const token of tokens) await addPayoutAddress(t, m, token);
  return m;
}

/** Adds a live payout address (a fresh one) of `token`; the first of a coin is in use at once. */
export async function addPayoutAddress(t: TestApp, m: Merchant, token: TokenSymbol): Promise<string> {
  const address = freshAddress();
  const res = await t.app.inject({
    method: 'POST', url: '/merchant/payout-addresses', remoteAddress: randomIp(), headers: tokenHeader(m.acct.accessToken),
    payload: { token, address, password: m.acct.password },
  });
  if (res.statusCode !== 201) throw new Error(`payout address: ${res.statusCode} ${res.body}`);
  m.addresses[token] = address;
  m.addressIds[token] = res.json().address.id;
  return address;
}

export async function createLivePayment(t: TestApp, m: Merchant, token: TokenSymbol, amountUsd = '50'): Promise<Json> {
  const res = await t.app.inject({
    method: 'POST', url: '/v1/payments', headers: keyHeader(m.acct.liveKey), payload: { order_id: `o-${uid()}`, amount_usd: amountUsd, token },
  });
  if (res.statusCode !== 201) throw new Error(`live payment: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** What the customer owes in base units. */
export const owed = (p: Json): bigint => parseUnits(p.crypto_amount as string, TOKEN_DEFS[p.token as TokenSymbol].decimals)!;

/** Reports a transfer the way the chain watcher does: seen with one confirmation, then final. */
export async function reportDeposit(t: ChainApp, address: string, token: TokenSymbol, tx: { hash: Hex; block: bigint }, amount: bigint, final = true): Promise<void> {
  const intake = t.services.payments.intake;
  await intake.recordDeposit({ address }, { txId: tx.hash, token, amount, confirmations: 1, block: Number(tx.block), at: t.clock.now() });
  if (final) await intake.markFinal({ address }, tx.hash, t.clock.now());
  await t.platform.outbox.drainNow();
}

export async function settlementsOf(t: TestApp, paymentId: string): Promise<Json[]> {
  const trail = await t.services.settlement.trailSettlements(paymentId) as { settlement: Json }[];
  return trail.map((x) => x.settlement);
}

/**
 * Runs the transfer worker, mining a block on both nodes between passes, until `done()` holds;
 * fails after `max` passes.
 */
export async function driveUntil(t: ChainApp, done: () => Promise<boolean>, max = 40): Promise<number> {
  for (let i = 0; i < max; i++) {
    await t.services.sending.transfers.runOnce();
    await t.platform.outbox.drainNow();
    if (await done()) return i + 1;
    await Promise.all([t.nodes.eth.mine(1), t.nodes.bsc.mine(1)]);
  }
  throw new Error(`not done after ${max} passes`);
}

/** Funds a hot wallet from the funder: native coin, and test USDT on the chain when asked. */
export async function fundHotWallet(n: EvmNodes, chain: 'ethereum' | 'bsc', address: string, native: bigint, usdt = 0n): Promise<void> {
  const token: TokenSymbol = chain === 'ethereum' ? 'USDT_ERC20' : 'USDT_BEP20';
  if (native > 0n) await pay(n, chain === 'ethereum' ? 'ETH' : 'BNB', address, native);
  if (usdt > 0n) await pay(n, token, address, usdt);
}

export async function hotWallet(t: TestApp, chain: string): Promise<Json> {
  const res = await t.app.inject({ method: 'GET', url: '/admin/wallets', headers: ADMIN });
  return res.json().wallets.find((w: Json) => w.chain === chain && w.livemode);
}
