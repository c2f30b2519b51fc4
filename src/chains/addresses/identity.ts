// Which key an address pays, whatever network or letter case it is written in: what tells a
// payout address that is the service's own (a hot wallet, a deposit address) from a merchant's.
//   k:<hex>  the hash160 of a public key: a Bitcoin-family P2PKH or P2WPKH address of any network,
//            or an XRP account (its account id is the same hash)
//   a:<hex>  a 20-byte account id of Ethereum, BNB Smart Chain or Tron (keccak of the key)
// Other addresses (script hashes, taproot) pay no single key: they have no identity.
import { hex } from '@scure/base';
import type { Chain } from '../../config.ts';
import { decodeBase58Check, decodeSegwit, decodeXrpBase58Check, encodeBase58Check, encodeSegwit, encodeXrpBase58Check, toChecksumAddress } from './encoding.ts';
import { TRON_PREFIX, UTXO_CHAINS, UTXO_NETWORKS, XRP_ACCOUNT_PREFIX, isUtxoChain } from './networks.ts';

export function addressIdentity(chain: Chain, address: string): string | null {
  const text = address.trim();
  if (isUtxoChain(chain)) {
    for (const network of Object.values(UTXO_NETWORKS[chain])) {
      if (network.hrp && text.toLowerCase().startsWith(`${network.hrp}1`)) {
        const seg = decodeSegwit(text, network.hrp);
        if (seg && seg.version === 0 && seg.program.length === 20) return `k:${hex.encode(seg.program)}`;
      }
      const b58 = decodeBase58Check(text);
      if (b58 && b58.version === network.p2pkh) return `k:${hex.encode(b58.payload)}`;
    }
    return null;
  }
  if (chain === 'ethereum' || chain === 'bsc') return /^0x[0-9a-fA-F]{40}$/.test(text) ? `a:${text.slice(2).toLowerCase()}` : null;
  if (chain === 'tron') {
    const b58 = decodeBase58Check(text);
    return b58 && b58.version === TRON_PREFIX ? `a:${hex.encode(b58.payload)}` : null;
  }
  const xrp = decodeXrpBase58Check(text);
  return xrp && xrp.version === XRP_ACCOUNT_PREFIX ? `k:${hex.encode(xrp.payload)}` : null;
}

/** Every form an address of this identity can be written in on the seven chains (deposit addresses are stored in one of them). */
export function identityForms(identity: string): string[] {
  const bytes = hex.decode(identity.slice(2));
  const forms = new Set<string>();
  if (identity.startsWith('a:')) {
    forms.add(toChecksumAddress(bytes)).add(`0x${identity.slice(2)}`).add(encodeBase58Check(TRON_PREFIX, bytes));
  } else {
    for (const chain of UTXO_CHAINS) {
      for (const network of Object.values(UTXO_NETWORKS[chain])) {
        if (network.hrp) forms.add(encodeSegwit(network.hrp, 0, bytes));
        forms.add(encodeBase58Check(network.p2pkh, bytes));
      }
    }
    forms.add(encodeXrpBase58Check(XRP_ACCOUNT_PREFIX, bytes));
  }
  return [...forms];
}
