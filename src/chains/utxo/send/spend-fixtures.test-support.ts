// Inputs for signing tests: previous transactions paying a key's own script, made up locally (a
// signature commits to the outpoint and amount, and a legacy one to the whole previous
// transaction, never to whether it was mined), so spends of hundreds of inputs need no node.
import crypto from 'node:crypto';
import { Transaction } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concat, hash160 } from '../../addresses/encoding.ts';
import type { UtxoCoin } from '../coins.ts';
import type { SpendInput } from './sign.ts';

/** The output script a private key spends on the coin: P2WPKH (Bitcoin, Litecoin), P2PKH (Dogecoin). */
export function ownScript(coin: UtxoCoin, privateKey: Uint8Array): Uint8Array {
  const pkh = hash160(secp256k1.getPublicKey(privateKey, true));
  return coin.script === 'p2wpkh' ? concat([0x00, 0x14], pkh) : concat(concat([0x76, 0xa9, 0x14], pkh), [0x88, 0xac]);
}

/** A previous transaction paying `script` (a legacy input signs over it whole). */
export function previous(script: Uint8Array, amount: bigint): { txid: string; raw: Uint8Array } {
  const tx = new Transaction({ allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true });
  tx.addOutput({ script, amount });
  tx.addInput({ txid: crypto.randomBytes(32), index: 0, finalScriptSig: new Uint8Array([0x51]) });
  return { txid: tx.id, raw: tx.toBytes(true, false) };
}

/** Inputs of these amounts, each the only output of its own previous transaction, paying `script`. */
export function inputsPaying(coin: UtxoCoin, script: Uint8Array, amounts: readonly bigint[]): SpendInput[] {
  return amounts.map((amount) => {
    const prev = previous(script, amount);
    return { txid: prev.txid, vout: 0, amount, script, ...(coin.script === 'p2pkh' ? { prevRaw: prev.raw } : {}) };
  });
}
