// "Open in wallet" links where a standard exists. Pure.
// - Bitcoin, Litecoin, Dogecoin: BIP21, `bitcoin:<address>?amount=<coins>` (litecoin:, dogecoin:).
// - Ethereum and BNB Smart Chain: EIP-681 with the chain id of the gateway's node (the page's
//   evm-chain-ids: a staging gateway on anvil or a testnet names that network, never mainnet; while
//   its node has not said, null, there is no link; mainnet's 1 and 56 without it); the chain's coin as
//   `ethereum:<address>@<chain id>?value=<amount>e<decimals>` (the amount in its atomic unit,
//   written in the scientific notation the standard recommends, exponent = the coin's decimals),
//   a token as a call of its contract's `transfer`:
//   `ethereum:<contract>@<chain id>/transfer?address=<address>&uint256=<amount>e<decimals>`.
// - XRP Ledger: the `xrpl://` handler with XLS-2's parameters, `xrpl://<address>?amount=<XRP>&dt=<tag>`.
// - Tron: `tron:<address>?amount=<TRX>` for TRX; TRC-20 tokens have no URI wallets agree on (none).
// A test payment gets none: nothing watches its address (spec: test payments move no coins, they
// are paid with the simulate panel), and a wallet opened on these links would send real coins on
// the main network (a production gateway's EVM links name chain 1 or 56; XRP and Tron addresses
// are the same on every network).
import { chainIdOf, contractOf, tokenDef } from './networks.ts';
import { toUnits } from './amounts.ts';

/** What the server says of its networks (the page's meta tags token-contracts and evm-chain-ids). */
export interface WalletNetworks {
  contracts: Readonly<Record<string, string>>;
  chainIds: Readonly<Record<string, number | null>>;
}

export interface WalletRequest {
  /** The payment's `livemode`: a test payment gets no link. */
  livemode: boolean;
  token: string;
  address: string;
  /** In coins, as a decimal string (what is still due). */
  amount: string;
  destinationTag?: number;
  /** TOKEN_CONTRACTS overrides of the server. */
  contracts?: Readonly<Record<string, string>>;
  /** The EVM chain ids of the server's nodes (null: not known yet, no link); a chain left out: mainnet's. */
  chainIds?: Readonly<Record<string, number | null>>;
}

const BIP21_SCHEMES: Readonly<Record<string, string>> = { bitcoin: 'bitcoin', litecoin: 'litecoin', dogecoin: 'dogecoin' };

export function walletUri(r: WalletRequest): string | null {
  const def = tokenDef(r.token);
  // An amount with more decimals than the coin has is no amount of it.
  if (!r.livemode || !def || !r.address || toUnits(r.amount, def.decimals) === null) return null;
  const amount = encodeURIComponent(r.amount);
  const bip21 = BIP21_SCHEMES[def.chain];
  if (bip21) return `${bip21}:${r.address}?amount=${amount}`;
  const chainId = chainIdOf(def.chain, r.chainIds ?? {});
  if (chainId === null) return null;
  if (chainId !== undefined) {
    const atomic = `${r.amount}e${def.decimals}`;
    if (def.native) return `ethereum:${r.address}@${chainId}?value=${atomic}`;
    const contract = contractOf(r.token, r.contracts ?? {});
    return contract ? `ethereum:${contract}@${chainId}/transfer?address=${r.address}&uint256=${atomic}` : null;
  }
  if (def.chain === 'xrp') {
    return `xrpl://${r.address}?amount=${amount}${r.destinationTag !== undefined ? `&dt=${r.destinationTag}` : ''}`;
  }
  if (def.chain === 'tron' && def.native) return `tron:${r.address}?amount=${amount}`;
  return null;
}
