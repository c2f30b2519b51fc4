// Payout-address validation per token's network (spec part 7 "Payout addresses") and XRP destination tags.
import type { Chain } from '../../config.ts';
import { isToken, tokenDef, type TokenSymbol } from '../../tokens/index.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concat, decodeBase58Check, decodeSegwit, decodeXrpBase58Check, isVersionedWitnessProgram, toChecksumAddress } from './encoding.ts';
import { NETWORK_NAMES, TRON_PREFIX, UTXO_NETWORKS, XRP_ACCOUNT_PREFIX, isUtxoChain, type UtxoChain, type UtxoNetwork } from './networks.ts';
import { hex } from '@scure/base';
import { modeNetwork } from './live-networks.ts';

export type AddressCheck = { ok: true; normalized: string } | { ok: false; message: string; hint?: string };
export type TagCheck = { ok: true; tag: number } | { ok: false; message: string };

export const invalidAddressMessage = (chain: Chain): string => `address is not a valid ${NETWORK_NAMES[chain]} address`;
export const X_ADDRESS_HINT = 'X-addresses are not accepted: give the classic address (r…) and its destination tag';

export const MAX_DESTINATION_TAG = 4294967295;
export const INVALID_TAG_MESSAGE = `tag must be an integer from 0 to ${MAX_DESTINATION_TAG}`;

/**
 * Checks `address` for the network of a token (or chain). Surrounding whitespace is ignored;
 * `normalized` is the form to store (bech32 in lowercase, EVM in EIP-55 checksum case).
 * A test Bitcoin or Litecoin address may be mainnet or testnet (spec); everything else is mainnet only
 * (live: the network the chain's node reports, live-networks.ts).
 */
export function validatePayoutAddress(tokenOrChain: TokenSymbol | Chain, address: unknown, livemode: boolean): AddressCheck {
  const chain = isToken(tokenOrChain) ? tokenDef(tokenOrChain).chain : tokenOrChain;
  const text = typeof address === 'string' ? address.trim() : '';
  if (chain === 'xrp' && /^[XT][1-9A-HJ-NP-Za-km-z]{46}$/.test(text)) {
    return { ok: false, message: invalidAddressMessage(chain), hint: X_ADDRESS_HINT };
  }
  const normalized = text === '' ? undefined : normalize(chain, text, livemode);
  return normalized === undefined ? { ok: false, message: invalidAddressMessage(chain) } : { ok: true, normalized };
}

function normalize(chain: Chain, text: string, livemode: boolean): string | undefined {
  if (isUtxoChain(chain)) {
    const { main, test } = UTXO_NETWORKS[chain];
    const networks = livemode ? [modeNetwork(chain, true)] : chain === 'dogecoin' ? [main] : [main, test];
    for (const network of networks) {
      const found = utxoAddress(chain, network, text);
      if (found) return found;
    }
    return undefined;
  }
  if (chain === 'ethereum' || chain === 'bsc') return evmAddress(text);
  if (chain === 'tron') return tronAddress(text);
  return xrpAddress(text);
}

function utxoAddress(chain: UtxoChain, network: UtxoNetwork, text: string): string | undefined {
  if (network.hrp && text.toLowerCase().startsWith(`${network.hrp}1`)) {
    const segwit = decodeSegwit(text, network.hrp);
    if (!segwit) return undefined;
    if (chain === 'litecoin' && isMwebReserved(segwit.version, segwit.program)) return undefined;
    return isPayableProgram(segwit.version, segwit.program) ? text.toLowerCase() : undefined;
  }
  const decoded = decodeBase58Check(text);
  if (!decoded) return undefined;
  return decoded.version === network.p2pkh || network.p2sh.includes(decoded.version) ? text : undefined;
}

/**
 * v0: key hash (20) or script hash (32); v1 of 32 bytes: taproot, whose output key must lie on the
 * curve or nothing can ever spend it. Every other version 1 to 16 with a program of 2 to 40 bytes
 * is a future soft fork's output (BIP-350): senders must be able to pay it, nodes relay it
 * (witness_unknown), and only its owner's wallet knows its rules.
 */
export function isPayableProgram(version: number, program: Uint8Array): boolean {
  if (version === 0) return program.length === 20 || program.length === 32;
  if (version === 1 && program.length === 32) return isXOnlyKey(program);
  return isVersionedWitnessProgram(version, program.length);
}

/**
 * Litecoin's MWEB gives two 32-byte witness programs a meaning of their own: version 9 is a peg-in
 * (its program a kernel id, valid only alongside that kernel in the block's MWEB data) and version 8
 * the block's HogEx output. A plain transaction paying either is no payment to a wallet: refused.
 */
function isMwebReserved(version: number, program: Uint8Array): boolean {
  return (version === 8 || version === 9) && program.length === 32;
}

function isXOnlyKey(program: Uint8Array): boolean {
  if (program.length !== 32) return false;
  try {
    secp256k1.Point.fromBytes(concat([0x02], program));
    return true;
  } catch {
    return false;
  }
}

function evmAddress(text: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text)) return undefined;
  const body = text.slice(2);
  const checksummed = toChecksumAddress(hex.decode(body.toLowerCase()));
  // One case throughout carries no checksum; mixed case must be exactly the EIP-55 form.
  const singleCase = body === body.toLowerCase() || body === body.toUpperCase();
  if (!singleCase && checksummed !== text) return undefined;
  // The zero address burns whatever is sent to it.
  return /^0x0{40}$/.test(text) ? undefined : checksummed;
}

function tronAddress(text: string): string | undefined {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text)) return undefined;
  const decoded = decodeBase58Check(text);
  if (!decoded || decoded.version !== TRON_PREFIX) return undefined;
  // The zero address (T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb) is Tron's black hole, as on EVM chains.
  return decoded.payload.every((b) => b === 0) ? undefined : text;
}

function xrpAddress(text: string): string | undefined {
  if (!/^r[1-9A-HJ-NP-Za-km-z]{24,34}$/.test(text)) return undefined;
  const decoded = decodeXrpBase58Check(text);
  if (!decoded || decoded.version !== XRP_ACCOUNT_PREFIX) return undefined;
  // Account zero and account one are the ledger's black holes: nobody holds their keys.
  const id = decoded.payload;
  const blackHole = id.slice(0, 19).every((b) => b === 0) && (id[19] === 0 || id[19] === 1);
  return blackHole || XRP_BLACK_HOLES.has(text) ? undefined : text;
}

/** The other black holes of xrpl.org's "Special addresses": the name reservation one and the NaN address. */
const XRP_BLACK_HOLES = new Set(['rrrrrrrrrrrrrrrrrNAMEtxvNvQ', 'rrrrrrrrrrrrrrrrrrrn5RM1rHd']);

/** A payout address's XRP destination tag: an integer 0 … 4294967295. */
export function validateDestinationTag(value: unknown): TagCheck {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_DESTINATION_TAG
    ? { ok: true, tag: value }
    : { ok: false, message: INVALID_TAG_MESSAGE };
}

/**
 * Whether a tag may identify an XRP deposit: 1 … 4294967295. Zero is left out because wallets
 * treat a zero or absent tag alike, so a payment sent without a tag could never be told apart.
 */
export const isDepositDestinationTag = (tag: unknown): tag is number =>
  typeof tag === 'number' && Number.isInteger(tag) && tag >= 1 && tag <= MAX_DESTINATION_TAG;
