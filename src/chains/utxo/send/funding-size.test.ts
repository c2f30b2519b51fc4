// The size a hot-wallet spend is chosen for (fundingVbytes) is never less than the signed
// transaction's: outputs are selected for the fee the signed transaction will pay, so a spend
// chosen for n inputs is never refused for a fee its inputs cannot cover. Both script types: P2WPKH
// (Bitcoin, Litecoin) and legacy P2PKH (Dogecoin), the recipient's output the largest standard one
// of the coin (witness v16 of 40 bytes; P2PKH on Dogecoin).
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concat } from '../../addresses/encoding.ts';
import { UTXO_COINS } from '../coins.ts';
import { fundingVbytes, maxHotInputs } from './family.ts';
import { signSpend } from './sign.ts';
import { inputsPaying, ownScript } from './spend-fixtures.test-support.ts';

const key = secp256k1.utils.randomSecretKey();

describe('fundingVbytes', () => {
  for (const chain of ['litecoin', 'bitcoin', 'dogecoin'] as const) {
    const coin = UTXO_COINS[chain];
    it(`covers a signed ${chain} spend of 1 to 20 inputs paying the largest standard output and the change`, async () => {
      for (let n = 1; n <= 20; n++) {
        const inputs = inputsPaying(coin, ownScript(coin, key), Array.from({ length: n }, () => 1_000_000_000n));
        // a future witness version's 40-byte program (BIP-350); Dogecoin has no segwit: P2PKH
        const recipient = coin.script === 'p2pkh' ? concat(concat([0x76, 0xa9, 0x14], crypto.randomBytes(20)), [0x88, 0xac]) : concat([0x60, 0x28], crypto.randomBytes(40));
        const signed = await signSpend(coin, inputs, [{ script: recipient, amount: 100_000_000n }, { script: ownScript(coin, key), amount: 200_000_000n }], key);
        expect(signed.vsize).toBeLessThanOrEqual(fundingVbytes(coin, n));
      }
    });
  }

});

describe('maxHotInputs', () => {
  it('keeps a hot-wallet spend within 90% of the node\'s standard size (Bitcoin and Litecoin 400,000 weight units, Dogecoin 100,000 bytes)', () => {
    expect(['bitcoin', 'litecoin', 'dogecoin'].map((c) => maxHotInputs(UTXO_COINS[c as 'bitcoin']))).toEqual([1303, 1303, 603]);
    for (const coin of Object.values(UTXO_COINS)) {
      const max = maxHotInputs(coin);
      expect(fundingVbytes(coin, max)).toBeLessThanOrEqual(coin.maxStandardVbytes * 0.9);
      expect(fundingVbytes(coin, max + 1)).toBeGreaterThan(coin.maxStandardVbytes * 0.9);
    }
  });
});
