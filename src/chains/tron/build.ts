// A Tron transaction built and signed locally (pure): raw_data in java-tron's protobuf form (the
// fields of Transaction.raw, Contract and the TransferContract / TriggerSmartContract messages of
// Tron.proto, in field order, defaults left out as proto3 does), the same raw_data as JSON for
// the node, txID = SHA-256 of the raw bytes, and a 65-byte recoverable secp256k1 signature of it.
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';

export const TRANSFER_SELECTOR = 'a9059cbb';
const CONTRACT_TYPE = { TransferContract: 1, TriggerSmartContract: 31 } as const;

export interface RefBlock {
  /** blockID of a recent block (TAPoS): 8 bytes of height, then hash bytes. */
  blockID: string;
  /** Its timestamp, ms. */
  timestamp: number;
}

export type TronCall =
  | { type: 'TransferContract'; owner: string; to: string; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: string; contract: string; data: string; feeLimit: bigint };

export interface TronSignedTx {
  txID: string;
  raw_data: Record<string, unknown>;
  raw_data_hex: string;
  signature: string[];
}

function varint(n: bigint): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}

const tag = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
const bytesField = (field: number, b: Uint8Array | number[]) => (b.length === 0 ? [] : [...tag(field, 2), ...varint(BigInt(b.length)), ...b]);
const intField = (field: number, v: bigint) => (v === 0n ? [] : [...tag(field, 0), ...varint(v)]);
const fromHex = (h: string) => [...Buffer.from(h, 'hex')];

function contractBytes(c: TronCall): { message: number[]; typeName: string } {
  if (c.type === 'TransferContract') {
    return { typeName: 'TransferContract', message: [...bytesField(1, fromHex(c.owner)), ...bytesField(2, fromHex(c.to)), ...intField(3, c.amount)] };
  }
  return { typeName: 'TriggerSmartContract', message: [...bytesField(1, fromHex(c.owner)), ...bytesField(2, fromHex(c.contract)), ...bytesField(4, fromHex(c.data))] };
}

/** `transfer(address,uint256)` call data of a TRC-20 token (the address without its 41 prefix). */
export function transferCallData(toHex: string, amount: bigint): string {
  return TRANSFER_SELECTOR + toHex.slice(2).padStart(64, '0') + amount.toString(16).padStart(64, '0');
}

/**
 * Builds and signs; `expiration` in ms (the node refuses it once a block's time passes it, and one
 * more than a day past the head block's time). `timestamp` (ms) is part of what the id hashes: two
 * calls alike in all else against one reference block are one transaction unless it differs.
 */
export function buildSigned(c: TronCall, ref: RefBlock, times: { expiration: number; timestamp: number }, privateKey: Uint8Array): TronSignedTx {
  const refBytes = ref.blockID.slice(12, 16);
  const refHash = ref.blockID.slice(16, 32);
  const { expiration, timestamp } = times;
  const { message, typeName } = contractBytes(c);
  const typeUrl = `type.googleapis.com/protocol.${typeName}`;
  const any = [...bytesField(1, [...Buffer.from(typeUrl)]), ...bytesField(2, message)];
  const contract = [...intField(1, BigInt(CONTRACT_TYPE[c.type])), ...bytesField(2, any)];
  const feeLimit = c.type === 'TriggerSmartContract' ? c.feeLimit : 0n;
  const raw = Uint8Array.from([
    ...bytesField(1, fromHex(refBytes)), ...bytesField(4, fromHex(refHash)), ...intField(8, BigInt(expiration)),
    ...bytesField(11, contract), ...intField(14, BigInt(timestamp)), ...intField(18, feeLimit),
  ]);
  const txID = createHash('sha256').update(raw).digest('hex');
  const sig = secp256k1.sign(Buffer.from(txID, 'hex'), privateKey, { prehash: false, format: 'recovered' });
  // noble gives recovery || r || s; Tron writes r || s || v (v = 27 + recovery)
  const signature = Buffer.concat([Buffer.from(sig.subarray(1)), Buffer.from([27 + sig[0]])]).toString('hex');
  const value = c.type === 'TransferContract'
    ? { owner_address: c.owner, to_address: c.to, amount: Number(c.amount) }
    : { owner_address: c.owner, contract_address: c.contract, data: c.data };
  const rawData: Record<string, unknown> = {
    contract: [{ parameter: { value, type_url: typeUrl }, type: typeName }],
    ref_block_bytes: refBytes, ref_block_hash: refHash, expiration, timestamp,
    ...(feeLimit > 0n ? { fee_limit: Number(feeLimit) } : {}),
  };
  return { txID, raw_data: rawData, raw_data_hex: Buffer.from(raw).toString('hex'), signature: [signature] };
}
