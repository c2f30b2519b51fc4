// Output scripts ↔ addresses of the standard types, decoded from the script bytes rather than read
// from the node's `address`/`addresses` fields: one code path for every node version (Bitcoin Core
// 22+ writes `address`, Litecoin 0.21 and Dogecoin 1.14 an `addresses` array, some versions neither
// for some types), and the address comes out in the network the reader was told, byte for byte.
import { hex } from '@scure/base';
import { concat, decodeBase58Check, decodeSegwit, encodeBase58Check, encodeSegwit, isVersionedWitnessProgram } from '../addresses/encoding.ts';
import type { UtxoNetwork } from '../addresses/index.ts';

/**
 * The address an output script pays to (P2PKH, P2SH, and where the network has segwit P2WPKH, P2WSH
 * and P2TR); null for anything else (OP_RETURN, bare multisig, MWEB).
 * Works on the hex text directly: a block of thousands of outputs is decoded without byte copies.
 */
export function addressOfScript(network: UtxoNetwork, script: string): string | null {
  const s = script.toLowerCase();
  // OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG
  if (s.length === 50 && s.startsWith('76a914') && s.endsWith('88ac')) return encodeBase58Check(network.p2pkh, hex.decode(s.slice(6, 46)));
  // OP_HASH160 <20> OP_EQUAL
  if (s.length === 46 && s.startsWith('a914') && s.endsWith('87')) return encodeBase58Check(network.p2sh[0], hex.decode(s.slice(4, 44)));
  if (!network.hrp || s.length < 8) return null;
  // OP_0 <20 or 32 bytes> (key or script hash) and OP_1 <32 bytes> (taproot). Later witness versions
  // pay no address anyone can give out (Litecoin's MWEB HogEx output is OP_8 <32 bytes>): skipped.
  const head = s.slice(0, 4);
  if ((head === '0014' && s.length === 44) || (head === '0020' && s.length === 68)) return encodeSegwit(network.hrp, 0, hex.decode(s.slice(4)));
  if (head === '5120' && s.length === 68) return encodeSegwit(network.hrp, 1, hex.decode(s.slice(4)));
  return null;
}

/**
 * The output script paying an address of the network (any P2SH version byte it accepts, e.g.
 * Litecoin's older 3…; any witness version 0 to 16); null when the address is not one of its forms.
 */
export function scriptOfAddress(network: UtxoNetwork, address: string): Uint8Array | null {
  if (network.hrp && address.toLowerCase().startsWith(`${network.hrp}1`)) {
    const seg = decodeSegwit(address, network.hrp);
    if (!seg) return null;
    if (seg.version === 0 && (seg.program.length === 20 || seg.program.length === 32)) return concat([0x00, seg.program.length], seg.program);
    // OP_1 … OP_16 (0x51 … 0x60) and the program's push: taproot, and the future versions BIP-350
    // asks senders to pay (their programs, 2 to 40 bytes, push with their length as the opcode)
    const len = seg.program.length;
    if (isVersionedWitnessProgram(seg.version, len)) return concat([0x50 + seg.version, len], seg.program);
    return null;
  }
  const b58 = decodeBase58Check(address);
  if (!b58) return null;
  if (b58.version === network.p2pkh) return concat(concat([0x76, 0xa9, 0x14], b58.payload), [0x88, 0xac]);
  if (network.p2sh.includes(b58.version)) return concat(concat([0xa9, 0x14], b58.payload), [0x87]);
  return null;
}
