// A spend is signed once, its fee set from its size before signing (every signature counted at its
// longest): the fee is never below the rate times the signed transaction's size, and exceeds it by
// no more than what the signatures fall short of the longest (a quarter of a virtual byte a byte
// for P2WPKH, a byte for P2PKH). Drawn at random
// (fast-check) for Litecoin's P2WPKH and Dogecoin's P2PKH: hot-wallet payouts with change and
// without (change below dust goes to the fee), and settlements (a merchant's net with the service's
// share, sweeps, several transfers of one reference in one transaction). Keys derived as the
// service derives them (WalletKeys).
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { schnorr } from '@noble/curves/secp256k1.js';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { concat, encodeBase58Check, encodeSegwit } from '../../addresses/encoding.ts';
import { UTXO_NETWORKS } from '../../addresses/index.ts';
import { WalletKeys } from '../../wallets/keys.ts';
import { UTXO_COINS } from '../coins.ts';
import { scriptOfAddress } from '../scripts.ts';
import { buildSpend, type Carried, type SpendRecord } from './build-spend.ts';
import { fundingVbytes } from './family.ts';
import { feeFor } from './fee-rate.ts';
import type { PlannedTransfer } from './outputs.ts';
import { signSpend } from './sign.ts';
import { inputsPaying, ownScript } from './spend-fixtures.test-support.ts';
import { spendVbytes } from './spend-size.ts';

const keys = new WalletKeys(generateMnemonic(wordlist));
const CHAINS = ['litecoin', 'dogecoin'] as const;
type Chain = typeof CHAINS[number];

/**
 * An address of someone else's of each kind the coin pays (Dogecoin: P2PKH and P2SH only); a taproot
 * one of a key on the curve; a future witness version's (BIP-350: 2 to 16, programs of 2 to 40 bytes).
 */
function anAddress(chain: Chain, kind: number): string {
  const net = UTXO_NETWORKS[chain].main;
  const kinds = net.hrp
    ? [() => encodeSegwit(net.hrp!, 0, crypto.randomBytes(20)), () => encodeSegwit(net.hrp!, 0, crypto.randomBytes(32)), () => encodeSegwit(net.hrp!, 1, schnorr.getPublicKey(schnorr.utils.randomSecretKey())),
      () => encodeBase58Check(net.p2pkh, crypto.randomBytes(20)), () => encodeBase58Check(net.p2sh[0], crypto.randomBytes(20)),
      () => encodeSegwit(net.hrp!, 2 + crypto.randomInt(15), crypto.randomBytes(2 + crypto.randomInt(39))), () => encodeSegwit(net.hrp!, 16, crypto.randomBytes(40))]
    : [() => encodeBase58Check(net.p2pkh, crypto.randomBytes(20)), () => encodeBase58Check(net.p2sh[0], crypto.randomBytes(20))];
  return kinds[kind % kinds.length]();
}

/** Splits `total` into `n` positive amounts. */
function split(total: bigint, n: number, cuts: readonly number[]): bigint[] {
  const points = cuts.slice(0, n - 1).map((c) => (total * BigInt(c)) / 1_000_000n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const parts: bigint[] = [];
  let from = 0n;
  for (const p of [...points, total]) { parts.push(p - from); from = p; }
  return parts.some((p) => p <= 0n) ? [total, ...Array<bigint>(n - 1).fill(0n)].map((p, i) => (i === 0 ? total - BigInt(n - 1) : 1n)) : parts;
}

/** The length of an input's signature (sighash byte included): P2WPKH's first witness item, P2PKH's first push. */
function signatureLength(input: { finalScriptSig?: Uint8Array; finalScriptWitness?: Uint8Array[] }): number {
  if (input.finalScriptWitness?.length) return input.finalScriptWitness[0].length;
  // a push of 1 to 75 bytes is its own opcode: the length
  return input.finalScriptSig![0];
}

/** Builds and checks the spend: valid, every input signed, outputs as planned, the fee covering the signed size. */
async function check(chain: Chain, key: Uint8Array, amounts: bigint[], transfers: PlannedTransfer[], rate: bigint): Promise<'built' | string> {
  const coin = UTXO_COINS[chain];
  const network = UTXO_NETWORKS[chain].main;
  const inputs = inputsPaying(coin, ownScript(coin, key), amounts).map((i) => ({ ...i, height: 0 }));
  const built = await buildSpend(coin, network, inputs, transfers, key, (vsize) => feeFor(rate, vsize), rate);
  if ('kind' in built) return built.why;
  const seen = built.of(transfers[0].id);
  const record = seen.fee as unknown as SpendRecord;
  const tx = Transaction.fromRaw(hex.decode(seen.raw), { allowUnknownOutputs: true });
  expect(tx.id).toBe(seen.txId);
  expect(tx.isFinal).toBe(true);
  expect(tx.inputsLength).toBe(inputs.length);
  const outputs = Array.from({ length: tx.outputsLength }, (_, i) => tx.getOutput(i));
  const paidOut = outputs.reduce((s, o) => s + o.amount!, 0n);
  const fee = amounts.reduce((s, a) => s + a, 0n) - paidOut;
  expect(String(fee)).toBe(record.fee);
  expect(seen.feeReserve).toBe(fee);
  expect(Number(record.vsize)).toBe(tx.vsize);
  // never below the rate times the signed size: the node relays it, and it pays what it was sized for
  expect(fee).toBeGreaterThanOrEqual(feeFor(rate, tx.vsize));
  // what each transfer is paid: its output, exactly the amount of one that does not pay the fee
  const carries = JSON.parse(record.carries) as Carried[];
  for (const t of transfers) {
    const paid = BigInt(carries.find((c) => c.id === t.id)!.paid);
    expect(built.of(t.id).value).toBe(paid);
    if (!t.paysOwnFee) expect(paid).toBe(t.amount);
    else expect(paid === 0n || (paid >= coin.dustLimit && paid <= t.amount)).toBe(true);
    if (paid > 0n) expect(outputs.some((o) => o.amount === paid && hex.encode(o.script!) === hex.encode(scriptOfAddress(network, t.to)!))).toBe(true);
  }
  // with every output made, the fee is the rate times the size counted before signing, and that
  // size is the signed one but for signatures a byte shorter than the longest
  if (outputs.length === transfers.length) {
    const counted = spendVbytes(coin, inputs.length, outputs.map((o) => o.script!));
    expect(fee).toBe(feeFor(rate, counted));
    // what the signatures fall short of the longest (72 bytes with the sighash byte): a byte about
    // half the time, two or more now and then (an r or s with leading zero bytes, about 1 in 256)
    const short = Array.from({ length: tx.inputsLength }, (_, i) => 72 - signatureLength(tx.getInput(i))).reduce((a, b) => a + b, 0);
    expect(short).toBeGreaterThanOrEqual(0);
    expect(counted - tx.vsize).toBeLessThanOrEqual(coin.script === 'p2wpkh' ? Math.ceil(short / 4) : short);
  }
  return 'built';
}

describe('buildSpend', () => {
  for (const chain of CHAINS) {
    const coin = UTXO_COINS[chain];
    const rateArb = fc.bigInt({ min: coin.minFeePerKvb, max: coin.minFeePerKvb * 50n });

    it(`${chain}: a hot-wallet payout and its change (or none, below dust) pays at least the rate times its signed size`, async () => {
      const key = keys.hotPrivateKey(chain, true);
      const change = keys.hotAddress(chain, true);
      await fc.assert(fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }), rateArb, fc.array(fc.integer({ min: 1, max: 999_999 }), { minLength: 7, maxLength: 7 }),
        fc.integer({ min: 0, max: 6 }), fc.bigInt({ min: 0n, max: 3n * coin.dustLimit }), fc.boolean(),
        async (n, rate, cuts, kind, leftOver, noChange) => {
          // as the hot wallet chooses them: worth the amount and the fee of the largest such spend
          const amount = coin.dustLimit * 20n;
          const total = amount + feeFor(rate, fundingVbytes(coin, n)) + (noChange ? leftOver % coin.dustLimit : leftOver * 1000n);
          const transfers = [
            { id: 'payout', to: anAddress(chain, kind), amount, paysOwnFee: false },
            { id: 'change', to: change, amount: total - amount, paysOwnFee: true },
          ];
          expect(await check(chain, key, split(total, n, cuts), transfers, rate)).toBe('built');
        }), { numRuns: 20 });
    }, 120_000);

    it(`${chain}: a settlement (net and the service's share, sweeps, several transfers of one reference) pays at least the rate times its signed size`, async () => {
      await fc.assert(fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }), rateArb, fc.array(fc.integer({ min: 1, max: 999_999 }), { minLength: 5, maxLength: 5 }),
        fc.array(fc.record({ exact: fc.boolean(), amount: fc.bigInt({ min: coin.dustLimit, max: coin.dustLimit * 1000n }), kind: fc.integer({ min: 0, max: 6 }) }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        async (n, rate, cuts, shape, index) => {
          const key = keys.deposit(chain, true, index).privateKey;
          // a reference's transfers: nets to merchants, and what pays the fee (the service's share, a sweep to the hot wallet)
          const transfers = shape.map((s, i) => ({ id: `t${i}`, to: s.exact ? anAddress(chain, s.kind) : keys.hotAddress(chain, true), amount: s.amount, paysOwnFee: !s.exact }));
          if (!transfers.some((t) => t.paysOwnFee)) transfers.push({ id: 'share', to: keys.hotAddress(chain, true), amount: coin.dustLimit * 500n, paysOwnFee: true });
          const total = transfers.reduce((s, t) => s + t.amount, 0n);
          const outcome = await check(chain, key, split(total, n, cuts), transfers, rate);
          // shares too small for the fee are refused as before, with planOutputs' words
          if (outcome !== 'built') expect(outcome).toMatch(/^the network fee of \d+ base units exceeds the \d+ that pay it$/);
        }), { numRuns: 20 });
    }, 120_000);
  }
});

describe('spendVbytes', () => {
  it('counts a Litecoin spend of 260 inputs (a 3-byte input count) at least at its signed size, within a quarter byte an input', async () => {
    const coin = UTXO_COINS.litecoin;
    const key = keys.hotPrivateKey('litecoin', true);
    const script = ownScript(coin, key);
    const inputs = inputsPaying(coin, script, Array.from({ length: 260 }, () => 100_000n));
    const outs = [{ script: scriptOfAddress(UTXO_NETWORKS.litecoin.main, anAddress('litecoin', 2))!, amount: 1_000_000n }, { script, amount: 20_000_000n }];
    const signed = await signSpend(coin, inputs, outs, key);
    const counted = spendVbytes(coin, 260, outs.map((o) => o.script));
    expect(counted).toBeGreaterThanOrEqual(signed.vsize);
    expect(counted - signed.vsize).toBeLessThanOrEqual(65);
    expect(counted).toBeLessThanOrEqual(fundingVbytes(coin, 260));
  }, 60_000);
});

describe('buildSpend refusals', () => {
  const coin = UTXO_COINS.litecoin;
  const network = UTXO_NETWORKS.litecoin.main;
  const key = keys.hotPrivateKey('litecoin', true);
  const build = (transfers: PlannedTransfer[], total: bigint) =>
    buildSpend(coin, network, inputsPaying(coin, ownScript(coin, key), [total]).map((i) => ({ ...i, height: 0 })), transfers, key, (vsize) => feeFor(coin.minFeePerKvb, vsize), coin.minFeePerKvb);

  it('says a payee below dust or of another network is refused for good, a fee its payers cannot cover not', async () => {
    const to = anAddress('litecoin', 0);
    const dusty = await build([{ id: 'a', to, amount: coin.dustLimit - 1n, paysOwnFee: false }, { id: 'b', to: keys.hotAddress('litecoin', true), amount: 10_000_000n, paysOwnFee: true }], coin.dustLimit - 1n + 10_000_000n);
    expect(dusty).toEqual({ kind: 'refused', why: `${coin.dustLimit - 1n} base units to ${to} is below the dust limit of ${coin.dustLimit}`, permanent: true });
    const elsewhere = encodeSegwit('tltc', 0, crypto.randomBytes(20));
    const foreign = await build([{ id: 'a', to: elsewhere, amount: 10_000_000n, paysOwnFee: true }], 10_000_000n);
    expect(foreign).toEqual({ kind: 'refused', why: `${elsewhere} is not an address of this litecoin network`, permanent: true });
    const unpaid = await build([{ id: 'a', to, amount: 10_000_000n, paysOwnFee: false }, { id: 'b', to: keys.hotAddress('litecoin', true), amount: 1n, paysOwnFee: true }], 10_000_001n);
    expect(unpaid).toMatchObject({ kind: 'refused', permanent: false });
    expect((unpaid as { why: string }).why).toMatch(/^the network fee of \d+ base units exceeds the 1 that pay it$/);
  });
});

describe('spendVbytes of a future witness version\'s output', () => {
  it('counts OP_n and its push of 2 to 40 bytes at their length (a 40-byte one: 51 bytes with its amount), at least the signed size', async () => {
    const coin = UTXO_COINS.litecoin;
    const key = keys.hotPrivateKey('litecoin', true);
    const script = ownScript(coin, key);
    const inputs = inputsPaying(coin, script, [100_000_000n, 50_000_000n]);
    const alone = spendVbytes(coin, 2, [script]);
    for (let len = 2; len <= 40; len++) {
      const out = scriptOfAddress(UTXO_NETWORKS.litecoin.main, encodeSegwit('ltc', 2 + (len % 15), crypto.randomBytes(len)))!;
      expect(out.length).toBe(2 + len);
      const counted = spendVbytes(coin, 2, [script, out]);
      // amount (8), script length (1), OP_n (1), the push's length (1), the program
      expect(counted - alone).toBe(8 + 1 + 1 + 1 + len);
      const signed = await signSpend(coin, inputs, [{ script, amount: 100_000_000n }, { script: out, amount: 40_000_000n }], key);
      expect(counted).toBeGreaterThanOrEqual(signed.vsize);
      expect(counted - signed.vsize).toBeLessThanOrEqual(1);
    }
    expect(spendVbytes(coin, 2, [script, concat([0x60, 40], crypto.randomBytes(40))]) - alone).toBe(51);
  }, 60_000);
});
