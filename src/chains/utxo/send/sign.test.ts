// Signing a spend of hundreds of inputs (a hot wallet of many small outputs) costs seconds of CPU:
// it must leave the event loop free meanwhile (timers fire, requests are answered), and the
// transaction it gives must be whole: every input finalized, its id that of its bytes.
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { WalletKeys } from '../../wallets/keys.ts';
import { UTXO_COINS } from '../coins.ts';
import { signSpend } from './sign.ts';
import { inputsPaying, ownScript } from './spend-fixtures.test-support.ts';

const keys = new WalletKeys(generateMnemonic(wordlist));

describe('signSpend', () => {
  it.each([['litecoin', 800], ['dogecoin', 350]] as const)('signs a %s spend of %i inputs without holding the event loop', async (chain, n) => {
    const coin = UTXO_COINS[chain];
    const key = keys.hotPrivateKey(chain, true);
    const script = ownScript(coin, key);
    const inputs = inputsPaying(coin, script, Array.from({ length: n }, () => 100_000n));
    const outputs = [{ script, amount: BigInt(n) * 100_000n - 500_000n }];

    // a timer due in 20 ms, and the longest gap between ticks of a 10 ms interval while signing
    const started = performance.now();
    let fired = Infinity;
    setTimeout(() => { fired = performance.now() - started; }, 20);
    let last = started;
    let longest = 0;
    const tick = setInterval(() => { const now = performance.now(); longest = Math.max(longest, now - last); last = now; }, 10);
    const signed = await signSpend(coin, inputs, outputs, key);
    const took = performance.now() - started;
    clearInterval(tick);
    longest = Math.max(longest, performance.now() - last);

    // enough work that a held loop would show (the dogecoin spend took 465 ms at 250 inputs on a fast
    // 2-core machine: its legacy sighash grows with the square of the inputs, so 350 is about twice)
    expect(took).toBeGreaterThan(500);
    expect(fired).toBeLessThan(Math.min(250, took / 2));
    // a loop held by the signing would wait all of it at once (on a quiet machine the longest wait
    // is tens of ms; other processes and collections on a busy one stretch it to a few hundred,
    // never near the whole)
    expect(longest).toBeLessThan(took / 3);

    const parsed = Transaction.fromRaw(hex.decode(signed.raw));
    expect(parsed.id).toBe(signed.txId);
    expect(parsed.inputsLength).toBe(n);
    expect(parsed.isFinal).toBe(true);
    for (let i = 0; i < n; i++) {
      const input = parsed.getInput(i);
      if (coin.script === 'p2wpkh') expect(input.finalScriptWitness?.length).toBe(2);
      else expect(input.finalScriptSig?.length).toBeGreaterThan(100);
    }
    expect(parsed.vsize).toBe(signed.vsize);
  }, 60_000);
});
