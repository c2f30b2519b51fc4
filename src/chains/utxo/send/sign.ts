// Builds and signs one Bitcoin-family transaction with @scure/btc-signer: P2WPKH inputs (Bitcoin,
// Litecoin) carry their previous output, P2PKH inputs (Dogecoin) the whole previous transaction,
// as each signature hash needs. Every input signals replaceability (BIP-125) where the coin's
// fee bumps rely on it; the lock time is 0 and the version 2 (1 on Dogecoin, as its wallets write).
import { OutScript, Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import type { UtxoCoin } from '../coins.ts';

export interface SpendInput {
  txid: string;
  vout: number;
  amount: bigint;
  /** The output script being spent. */
  script: Uint8Array;
  /** The whole previous transaction (legacy P2PKH inputs sign over it). */
  prevRaw?: Uint8Array;
}

export interface SpendOutput {
  script: Uint8Array;
  amount: bigint;
}

export interface SignedSpend {
  txId: string;
  raw: string;
  vsize: number;
}

const RBF_SEQUENCE = 0xfffffffd;
const FINAL_SEQUENCE = 0xffffffff;

export function signSpend(coin: UtxoCoin, inputs: readonly SpendInput[], outputs: readonly SpendOutput[], privateKey: Uint8Array): SignedSpend {
  // btc-signer refuses output scripts it has no type for; a future witness version's (BIP-350) is
  // one a payout address may take, so that shape alone is let through, any other unknown still refused
  const allowUnknownOutputs = outputs.some((o) => isFutureWitnessOutput(o.script));
  const tx = new Transaction({ version: coin.chain === 'dogecoin' ? 1 : 2, lockTime: 0, allowUnknownOutputs });
  if (allowUnknownOutputs) {
    for (const o of outputs) {
      if (!isFutureWitnessOutput(o.script) && OutScript.decode(o.script).type === 'unknown') throw new Error(`unknown output script ${hex.encode(o.script)}`);
    }
  }
  const sequence = coin.replaceable ? RBF_SEQUENCE : FINAL_SEQUENCE;
  for (const i of inputs) {
    tx.addInput({
      txid: hex.decode(i.txid), index: i.vout, sequence,
      ...(coin.script === 'p2wpkh' ? { witnessUtxo: { script: i.script, amount: i.amount } } : { nonWitnessUtxo: i.prevRaw! }),
    });
  }
  for (const o of outputs) tx.addOutput({ script: o.script, amount: o.amount });
  tx.sign(privateKey);
  tx.finalize();
  return { txId: tx.id, raw: tx.hex, vsize: tx.vsize };
}

/** OP_1 … OP_16 and one push of 2 to 40 bytes, taproot's OP_1 <32> aside (btc-signer knows that one). */
function isFutureWitnessOutput(script: Uint8Array): boolean {
  const [op, len] = script;
  const taproot = op === 0x51 && len === 32;
  return op >= 0x51 && op <= 0x60 && len >= 2 && len <= 40 && script.length === len + 2 && !taproot;
}

/** The id of a signed transaction's bytes (to ask the node about one it refused to take again). */
export function txIdOf(raw: string): string {
  return Transaction.fromRaw(hex.decode(raw), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true }).id;
}
