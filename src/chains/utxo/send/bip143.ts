// Segwit v0 signature hashes (BIP-143) in linear time. @scure/btc-signer's preimageWitnessV0
// hashes every input's outpoint and sequence and every output again for each input it signs, so a
// spend of n inputs costs n² hashing (800 inputs: most of the signing's seconds, while the database
// transaction reserving them stays open). BIP-143 defines hashPrevouts, hashSequence and hashOutputs
// once per transaction: they are worked out once, on the first signature, and each input adds only
// its own part. SIGHASH_ALL alone, the only type the service signs with; any other is left to
// btc-signer. Legacy P2PKH (Dogecoin) has no such hashes: its signature hash serializes the whole
// transaction per input by design.
import { DEFAULT_SEQUENCE, SigHash, Transaction } from '@scure/btc-signer';
import { sha256 } from '@noble/hashes/sha2.js';

type InputUpdate = Parameters<Transaction['updateInput']>[1];

/**
 * The three BIP-143 hashes every SIGHASH_ALL input shares, each input's outpoint and sequence as
 * serialized, and the version and lock time (btc-signer works the lock time out from every input
 * each time it is read).
 */
interface Shared {
  prevouts: Uint8Array; sequences: Uint8Array; outputs: Uint8Array;
  outpoint: Uint8Array[]; sequence: Uint8Array[];
  version: Uint8Array; lockTime: Uint8Array;
}

/** What signing and finalizing an input write to it: none of it is in a signature hash. */
const SIGNATURE_FIELDS = new Set(['partialSig', 'finalScriptSig', 'finalScriptWitness']);

export class Bip143Transaction extends Transaction {
  /** Dropped whenever an input or an output is added or changed but for its signatures; built again on the next signature hash. */
  #shared: Shared | null = null;

  override addInput(...args: Parameters<Transaction['addInput']>): number {
    this.#shared = null;
    return super.addInput(...args);
  }

  override updateInput(idx: number, input: InputUpdate, ignoreSignStatus?: boolean): void {
    // signing adds each input's signature through here, which must not drop them
    if (Object.keys(input).some((k) => !SIGNATURE_FIELDS.has(k))) this.#shared = null;
    super.updateInput(idx, input, ignoreSignStatus);
  }

  override addOutput(...args: Parameters<Transaction['addOutput']>): number {
    this.#shared = null;
    return super.addOutput(...args);
  }

  override updateOutput(...args: Parameters<Transaction['updateOutput']>): void {
    this.#shared = null;
    super.updateOutput(...args);
  }

  override preimageWitnessV0(idx: number, prevOutScript: Uint8Array, hashType: number, amount: bigint): Uint8Array {
    if (hashType !== SigHash.ALL || !Number.isSafeInteger(idx) || idx < 0 || idx >= this.inputsLength) return super.preimageWitnessV0(idx, prevOutScript, hashType, amount);
    const shared = (this.#shared ??= this.#sharedHashes());
    return sha256x2(
      shared.version, shared.prevouts, shared.sequences,
      shared.outpoint[idx], compactSize(prevOutScript.length), prevOutScript, u64(amount), shared.sequence[idx],
      shared.outputs, shared.lockTime, u32(hashType),
    );
  }

  #sharedHashes(): Shared {
    const prevouts: Uint8Array[] = [];
    const sequences: Uint8Array[] = [];
    for (let i = 0; i < this.inputsLength; i++) {
      const input = this.getInput(i);
      prevouts.push(outpoint(input.txid!, input.index!));
      sequences.push(u32(input.sequence ?? DEFAULT_SEQUENCE));
    }
    const outputs: Uint8Array[] = [];
    for (let i = 0; i < this.outputsLength; i++) {
      const o = this.getOutput(i);
      outputs.push(u64(o.amount!), compactSize(o.script!.length), o.script!);
    }
    return {
      prevouts: sha256x2(...prevouts), sequences: sha256x2(...sequences), outputs: sha256x2(...outputs), outpoint: prevouts, sequence: sequences,
      version: u32(this.version), lockTime: u32(this.lockTime),
    };
  }
}

function sha256x2(...parts: Uint8Array[]): Uint8Array {
  const h = sha256.create();
  for (const p of parts) h.update(p);
  return sha256(h.digest());
}

/** The txid in the byte order it is serialized in (reversed from how it is shown), then the output index. */
function outpoint(txid: Uint8Array, index: number): Uint8Array {
  const out = new Uint8Array(36);
  out.set(Uint8Array.from(txid).reverse());
  out.set(u32(index), 32);
  return out;
}

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
}

function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
}

/** Bitcoin's CompactSize length prefix. */
function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  const b = new Uint8Array(5);
  b[0] = 0xfe;
  new DataView(b.buffer).setUint32(1, n, true);
  return b;
}
