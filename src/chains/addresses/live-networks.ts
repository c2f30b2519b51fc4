// The network live addresses of a Bitcoin-family chain are written for. It is mainnet unless the
// chain's node reports another (CONTRACT.md "Live chains": a regtest node gets regtest deposit,
// payout and hot-wallet addresses); the chain's reader sets it from `getblockchaininfo`. One setting
// per process, read by derivation and payout-address validation alike so they never disagree.
// Test mode is unaffected (it never touches a chain and keeps testnet formats).
import type { Chain } from '../../config.ts';
import { UTXO_NETWORKS, isUtxoChain, type UtxoChain, type UtxoNetwork, type UtxoNetworkKind } from './networks.ts';
import { decodeBase58Check, decodeSegwit, encodeBase58Check, encodeSegwit } from './encoding.ts';

const live = new Map<UtxoChain, UtxoNetworkKind>();

export function setLiveNetwork(chain: UtxoChain, kind: UtxoNetworkKind): void {
  if (kind === 'main') live.delete(chain); else live.set(chain, kind);
}

export function liveNetwork(chain: UtxoChain): UtxoNetworkKind {
  return live.get(chain) ?? 'main';
}

/** Every chain whose live network is not mainnet (handed to the derivation worker, which has its own copy). */
export function liveNetworkOverrides(): Partial<Record<UtxoChain, UtxoNetworkKind>> {
  return Object.fromEntries(live);
}

/** Parameters of the network a chain's addresses use in a mode. */
export function modeNetwork(chain: UtxoChain, livemode: boolean): UtxoNetwork {
  return UTXO_NETWORKS[chain][livemode ? liveNetwork(chain) : 'test'];
}

/**
 * The same key or script hash written for the mode's current network: a deposit address derived
 * (and kept in stock) before the node told its network is handed out in the right format. Anything
 * that is not a Bitcoin-family address of a known network comes back unchanged.
 */
export function inModeNetwork(chain: Chain, livemode: boolean, address: string): string {
  if (!isUtxoChain(chain)) return address;
  const target = modeNetwork(chain, livemode);
  for (const kind of ['main', 'test', 'regtest'] as const) {
    const from = UTXO_NETWORKS[chain][kind];
    if (from === target) continue;
    if (from.hrp && target.hrp && address.toLowerCase().startsWith(`${from.hrp}1`)) {
      const seg = decodeSegwit(address, from.hrp);
      if (seg) return encodeSegwit(target.hrp, seg.version, seg.program);
    }
    const b58 = decodeBase58Check(address);
    if (b58 && b58.version === from.p2pkh && from.p2pkh !== target.p2pkh) return encodeBase58Check(target.p2pkh, b58.payload);
    // a script hash too (a payout address given before the node told its network), in the
    // network's own P2SH version byte
    if (b58 && from.p2sh.includes(b58.version) && !target.p2sh.includes(b58.version)) return encodeBase58Check(target.p2sh[0], b58.payload);
  }
  return address;
}
