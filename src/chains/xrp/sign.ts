// An XRP Payment signed locally (pure): the canonical binary form of ripple-binary-codec, a
// secp256k1 signature by ripple-keypairs over the signing form, and the transaction id rippled
// gives it (SHA-512Half of `TXN\0` and the signed blob). LastLedgerSequence bounds it: once a
// validated ledger past it does not hold it, it never will, and the same sequence can be signed again.
import { createHash } from 'node:crypto';
import { decode, encode, encodeForSigning } from 'ripple-binary-codec';
import { sign } from 'ripple-keypairs';
import { secp256k1 } from '@noble/curves/secp256k1.js';

export interface XrpPayment {
  account: string;
  destination: string;
  tag?: number;
  /** Drops. */
  amount: bigint;
  /** Drops. */
  fee: bigint;
  sequence: number;
  lastLedgerSequence: number;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

/** SHA-512Half of hex bytes, upper-case hex (rippled's hashes). */
export const sha512Half = (h: string): string => createHash('sha512').update(Buffer.from(h, 'hex')).digest().subarray(0, 32).toString('hex').toUpperCase();

export function signPayment(p: XrpPayment, privateKey: Uint8Array): { txId: string; blob: string } {
  return signTx({
    TransactionType: 'Payment', Flags: 0, Account: p.account, Destination: p.destination, Amount: p.amount.toString(),
    Fee: p.fee.toString(), Sequence: p.sequence, LastLedgerSequence: p.lastLedgerSequence,
    ...(p.tag !== undefined ? { DestinationTag: p.tag } : {}),
  }, privateKey);
}

/** AccountSet's flag that makes the account refuse payments without a destination tag (lsfRequireDestTag). */
export const ASF_REQUIRE_DEST = 1;
/** The account flag it sets, as account_info shows it. */
export const LSF_REQUIRE_DEST_TAG = 0x0002_0000;

/** An AccountSet turning `setFlag` on. */
export function signAccountSet(p: Omit<XrpPayment, 'destination' | 'tag' | 'amount'> & { setFlag: number }, privateKey: Uint8Array): { txId: string; blob: string } {
  return signTx({
    TransactionType: 'AccountSet', Flags: 0, Account: p.account, SetFlag: p.setFlag,
    Fee: p.fee.toString(), Sequence: p.sequence, LastLedgerSequence: p.lastLedgerSequence,
  }, privateKey);
}

function signTx(fields: Record<string, unknown>, privateKey: Uint8Array): { txId: string; blob: string } {
  const tx: Record<string, unknown> = { ...fields, SigningPubKey: hex(secp256k1.getPublicKey(privateKey, true)) };
  // ripple-keypairs marks a secp256k1 private key with a 00 byte in front (ed25519 keys carry ED)
  tx.TxnSignature = sign(encodeForSigning(tx as never), `00${hex(privateKey)}`);
  const blob = encode(tx as never);
  return { txId: sha512Half(`54584E00${blob}`), blob };
}

/** The LastLedgerSequence a signed blob carries; null when it has none or does not decode. */
export function lastLedgerOf(blob: string): number | null {
  try {
    const v = (decode(blob) as Record<string, unknown>).LastLedgerSequence;
    return typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}
