// EVM transfers to recipients that are contracts, on a real node (anvil), with tiny contracts
// deployed from inline bytecode: one whose receive reverts is refused before anything is signed (no
// gas spent, the reason kept); one whose receive costs more than 21,000 gas (a smart wallet storing
// or logging what it gets) is sent with the gas the node estimates, and arrives; a native share
// paying its own fee to such a contract is estimated at the value it really moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { anvilOrSkip, startAnvil, type AnvilNode } from '../harness/anvil.ts';
import { uid } from '../harness/accounts.ts';
import { NodeEndpoints } from '../../src/chains/rpc/endpoints.ts';
import { EvmFamily, EvmRpc } from '../../src/chains/evm/send/index.ts';
import { WalletKeys } from '../../src/chains/wallets/keys.ts';
import { paysOwnFee } from '../../src/chains/transfers/intents.ts';
import type { TransferPurpose, TransferRow } from '../../src/chains/transfers/index.ts';

/** Creation code returning `runtime` as the contract's code. */
const initCode = (runtime: string): Hex => {
  const n = runtime.length / 2;
  return `0x60${n.toString(16).padStart(2, '0')}80600b6000396000f3${runtime}`;
};
/** PUSH1 0 PUSH1 0 REVERT: every call, with or without value, reverts. */
const REVERTS = '60006000fd';
/** CALLVALUE PUSH1 0 SSTORE STOP: stores what it receives (a first non-zero store costs 22,100 gas). */
const STORES_VALUE = '3460005500';

describe.runIf(anvilOrSkip())('EVM family: contract recipients', () => {
  let eth: AnvilNode;
  let family: EvmFamily;
  let rpc: EvmRpc;
  let keys: WalletKeys;
  beforeAll(async () => {
    eth = await startAnvil({ chainId: 1 });
    keys = new WalletKeys(generateMnemonic(wordlist));
    rpc = new EvmRpc(new NodeEndpoints([eth.url]));
    family = new EvmFamily('ethereum', rpc, keys, {});
  });
  afterAll(async () => { await eth?.close(); });

  async function deploy(runtime: string): Promise<Address> {
    const hash = await eth.wallet.deployContract({ abi: [], bytecode: initCode(runtime), account: eth.funder, chain: null });
    const r = await eth.client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    return r.contractAddress!;
  }

  function transfer(f: { purpose: TransferPurpose; fromRole: 'hot' | 'deposit'; fromIndex: number | null; fromAddress: string; to: string; amount: bigint }): TransferRow {
    const now = new Date();
    return {
      id: `trf_${uid()}`, seq: 1, chain: 'ethereum', livemode: true, purpose: f.purpose, token: 'ETH', fromAddress: f.fromAddress,
      fromRole: f.fromRole, fromIndex: f.fromIndex, toAddress: f.to, toTag: null, amount: f.amount,
      paysOwnFee: paysOwnFee({ token: 'ETH', purpose: f.purpose, fromRole: f.fromRole }), reference: `ref_${uid()}`, dependsOn: null,
      status: 'recorded', waiting: null, nonce: null, uncertain: false, txId: null, block: null, sentAmount: null, feesPaid: 0n, minedFee: null,
      failures: 0, replacements: 0, nextAt: now, lastError: null, createdAt: now, updatedAt: now, finalAt: null,
    };
  }
  const ctx = { feesPaidBefore: 0n, unsentFromSender: [] };

  /** Prepares, signs with the sender's nonce, broadcasts and reads the receipt. */
  async function send(t: TransferRow) {
    const prep = await family.prepare(t, ctx);
    if (prep.kind !== 'ready') throw new Error(`not ready: ${JSON.stringify(prep)}`);
    const s = await prep.sign(await family.chainNonce(t.fromAddress));
    expect(await family.broadcast(s.raw)).toEqual({ kind: 'accepted' });
    await eth.client.waitForTransactionReceipt({ hash: s.txId as Hex, pollingInterval: 20 });
    return { signed: s, inclusion: (await family.inclusion([s.txId]))! };
  }

  it('a payout to a contract whose receive reverts is refused before it is signed: no gas spent, the reason kept', async () => {
    const hot = keys.hotAddress('ethereum', true);
    await eth.test.setBalance({ address: hot as Address, value: 10n ** 18n });
    const to = await deploy(REVERTS);
    const prep = await family.prepare(transfer({ purpose: 'payout', fromRole: 'hot', fromIndex: null, fromAddress: hot, to, amount: 10n ** 15n }), ctx);
    expect(prep).toMatchObject({ kind: 'refused', why: expect.stringMatching(/^the transfer would fail: .*revert/i), permanent: false });
    expect(await family.chainNonce(hot)).toBe(0n);
  });

  it('a payout to a smart wallet needing more than 21,000 gas is sent with the estimated gas and arrives', async () => {
    const hot = keys.hotAddress('ethereum', true);
    await eth.test.setBalance({ address: hot as Address, value: 10n ** 18n });
    const to = await deploy(STORES_VALUE);
    const { inclusion } = await send(transfer({ purpose: 'payout', fromRole: 'hot', fromIndex: null, fromAddress: hot, to, amount: 10n ** 15n }));
    expect(inclusion.ok).toBe(true);
    expect(await eth.client.getBalance({ address: to })).toBe(10n ** 15n);
  });

  it('a native share paying its own fee to such a contract is estimated at what it moves, not at zero: it arrives, never out of gas', async () => {
    const index = 3;
    const deposit = keys.deposit('ethereum', true, index).address;
    await eth.test.setBalance({ address: deposit as Address, value: 10n ** 17n });
    const to = await deploy(STORES_VALUE);
    const { signed, inclusion } = await send(transfer({ purpose: 'sweep', fromRole: 'deposit', fromIndex: index, fromAddress: deposit, to, amount: 10n ** 17n }));
    expect(inclusion.ok).toBe(true);
    expect(await eth.client.getBalance({ address: to })).toBe(signed.value);
    expect(await eth.client.getBalance({ address: deposit as Address })).toBe(10n ** 17n - signed.value - inclusion.feePaid);
  });
});
