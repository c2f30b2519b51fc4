// What the EVM family decides before anything is signed, at the exact edges, on a real node (anvil,
// balances set to the wei): a hot wallet holding exactly what a payout needs sends it and one unit
// less waits for funds; a share paying its own fee sends what is left after every fee, and nothing
// when nothing is left; a token deposit address short of gas asks for one top-up covering every
// unsent transfer from it; a fee bump is signed only when it can be paid; a key that does not
// belong to the sending address never signs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { anvilOrSkip, deployTestToken, startAnvil, type AnvilNode } from '../harness/anvil.ts';
import { fundHotWallet, type EvmNodes } from '../harness/chain-send.ts';
import { uid } from '../harness/accounts.ts';
import { ADDR } from '../harness/settlement.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { bumpFee, EvmFamily, EvmRpc, feeFor, maxPrice } from '../../src/chains/evm/send/index.ts';
import { WalletKeys } from '../../src/chains/wallets/keys.ts';
import { paysOwnFee } from '../../src/chains/transfers/intents.ts';
import type { AttemptRow, Preparation, TransferPurpose, TransferRow } from '../../src/chains/transfers/index.ts';
import type { TokenSymbol } from '../../src/tokens/index.ts';

describe.runIf(anvilOrSkip())('EVM family: prepare at the edges', () => {
  let eth: AnvilNode;
  let usdt: Address;
  let family: EvmFamily;
  let rpc: EvmRpc;
  let keys: WalletKeys;
  let hot: Address;
  beforeAll(async () => {
    eth = await startAnvil({ chainId: 1 });
    usdt = await deployTestToken(eth, { decimals: 6 });
    keys = new WalletKeys(generateMnemonic(wordlist));
    rpc = new EvmRpc(new NodeEndpoints([eth.url]));
    family = new EvmFamily('ethereum', rpc, keys, { USDT_ERC20: usdt });
    hot = keys.hotAddress('ethereum', true) as Address;
  });
  afterAll(async () => { await eth?.close(); });

  const nodes = (): EvmNodes => ({ eth, bsc: eth, usdtErc20: usdt, usdtBep20: usdt });
  /** Sets the native balance to the wei, without mining (the base fee stays as it is). */
  const setBalance = (address: string, wei: bigint) => eth.test.setBalance({ address: address as Address, value: wei });
  /** Gas of the call at the fee the family signs with now: what the sender must hold for the network. */
  const reserveOf = async (call: { from: string; to: string; value?: bigint; data?: `0x${string}` }) =>
    await rpc.estimateGas(call) * maxPrice(feeFor(await family.prices()));

  /** The USDT `transfer` call of `amount` from `from` to the merchant, as the family builds it. */
  const tokenCall = (from: string, amount: bigint) => ({
    from, to: usdt, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [ADDR.EVM_2 as Address, amount] }),
  });

  /** A transfer row as the stepper hands it over (recorded, nothing signed). */
  function transfer(f: { token: TokenSymbol; purpose: TransferPurpose; fromRole: 'hot' | 'deposit'; fromIndex: number | null; fromAddress: string; amount: bigint }): TransferRow {
    const now = new Date();
    return {
      id: `trf_${uid()}`, seq: 1, chain: 'ethereum', livemode: true, purpose: f.purpose, token: f.token, fromAddress: f.fromAddress,
      fromRole: f.fromRole, fromIndex: f.fromIndex, toAddress: ADDR.EVM_2, toTag: null, amount: f.amount,
      paysOwnFee: paysOwnFee({ token: f.token, purpose: f.purpose, fromRole: f.fromRole }), reference: `ref_${uid()}`, dependsOn: null,
      status: 'recorded', waiting: null, nonce: null, uncertain: false, txId: null, block: null, sentAmount: null, feesPaid: 0n, minedFee: null,
      failures: 0, replacements: 0, nextAt: now, lastError: null, createdAt: now, updatedAt: now, finalAt: null,
    };
  }
  const ctx = (unsent: TransferRow[] = [], feesPaidBefore = 0n) => ({ feesPaidBefore, unsentFromSender: unsent });
  const signedValue = async (p: Preparation) => {
    if (p.kind !== 'ready') throw new Error(`not ready: ${JSON.stringify(p)}`);
    return (await p.sign(0n)).value;
  };

  it('a hot wallet holding exactly a payout\'s tokens and gas sends it; one unit less of either waits for funds', async () => {
    const amount = 7_000_000n;
    await fundHotWallet(nodes(), 'ethereum', hot, 0n, amount);
    const payout = transfer({ token: 'USDT_ERC20', purpose: 'payout', fromRole: 'hot', fromIndex: null, fromAddress: hot, amount });
    const reserve = await reserveOf(tokenCall(hot, amount));
    await setBalance(hot, reserve);
    expect(await signedValue(await family.prepare(payout, ctx()))).toBe(amount);
    await setBalance(hot, reserve - 1n);
    expect(await family.prepare(payout, ctx())).toMatchObject({ kind: 'no_funds', why: `the hot wallet holds ${reserve - 1n} wei, ${reserve} are needed` });
    await setBalance(hot, reserve);
    const more = transfer({ token: 'USDT_ERC20', purpose: 'payout', fromRole: 'hot', fromIndex: null, fromAddress: hot, amount: amount + 1n });
    expect(await family.prepare(more, ctx())).toMatchObject({ kind: 'no_funds', why: `the hot wallet holds ${amount} base units of USDT_ERC20, ${amount + 1n} are needed` });
  });

  it('a native share paying its own fee sends all that is left after the fees before it and its own; nothing left, it is not sent', async () => {
    const index = 7;
    const deposit = keys.deposit('ethereum', true, index).address;
    const reserve = await reserveOf({ from: deposit, to: ADDR.EVM_2, value: 0n });
    const paidBefore = 5_000n;
    const share = (amount: bigint) => transfer({ token: 'ETH', purpose: 'service_fee', fromRole: 'deposit', fromIndex: index, fromAddress: deposit, amount });
    await setBalance(deposit, 10n ** 18n);
    expect(await signedValue(await family.prepare(share(reserve + paidBefore + 1n), ctx([], paidBefore)))).toBe(1n);
    expect(await family.prepare(share(reserve + paidBefore), ctx([], paidBefore))).toMatchObject({ kind: 'nothing_left' });
  });

  it('a token deposit address short of gas asks for one top-up covering its unsent transfers, less what it holds', async () => {
    const index = 8;
    const deposit = keys.deposit('ethereum', true, index).address;
    await fundHotWallet(nodes(), 'ethereum', deposit, 0n, 3_000_000n);
    const merchant = transfer({ token: 'USDT_ERC20', purpose: 'settlement', fromRole: 'deposit', fromIndex: index, fromAddress: deposit, amount: 2_000_000n });
    const service = transfer({ token: 'USDT_ERC20', purpose: 'service_fee', fromRole: 'deposit', fromIndex: index, fromAddress: deposit, amount: 1_000_000n });
    const held = 1_000n;
    await setBalance(deposit, held);
    const need = await reserveOf(tokenCall(deposit, merchant.amount)) + await reserveOf(tokenCall(deposit, service.amount));
    expect(await family.prepare(merchant, ctx([merchant, service]))).toEqual({ kind: 'top_up', amount: need - held });
  });

  it('a fee bump the hot wallet cannot pay is not signed (the last transaction stays); one it can pay keeps the nonce and what it moves', async () => {
    const amount = 1_000_000n;
    await fundHotWallet(nodes(), 'ethereum', hot, 0n, amount);
    const payout = transfer({ token: 'USDT_ERC20', purpose: 'payout', fromRole: 'hot', fromIndex: null, fromAddress: hot, amount });
    const gas = await rpc.estimateGas(tokenCall(hot, amount));
    const last: AttemptRow = {
      transferId: payout.id, n: 1, txId: '0x01', raw: '0x', nonce: 4n, value: amount, feeReserve: 0n, createdAt: new Date(), broadcastAt: new Date(),
      fee: { type: 'eip1559', gas: gas.toString(), maxFeePerGas: '1000000000', maxPriorityFeePerGas: '1000000000' },
    };
    const need = gas * maxPrice(bumpFee({ type: 'eip1559', maxFeePerGas: 1_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }, feeFor(await family.prices())));
    await setBalance(hot, need - 1n);
    expect(await family.replace(payout, last, ctx())).toBeNull();
    await setBalance(hot, need);
    expect(await family.replace(payout, last, ctx())).toMatchObject({ nonce: 4n, value: amount, feeReserve: need });
  });

  it('a transfer whose sending address is not the one its key derives is refused, never signed', async () => {
    const other = keys.deposit('ethereum', true, 9).address;
    await setBalance(other, 10n ** 18n);
    // deposit address 9's row, claiming index 10: the key of index 10 would sign for another address
    const wrong = transfer({ token: 'ETH', purpose: 'settlement', fromRole: 'deposit', fromIndex: 10, fromAddress: other, amount: 1_000n });
    expect(await family.prepare(wrong, ctx())).toEqual({ kind: 'refused', why: 'the wallet key does not match the sending address', permanent: true });
  });
});
