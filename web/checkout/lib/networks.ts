// How a token is named to a payer, with its network: "USDT on Tron (TRC-20)", and what its
// wallet link looks like. Decimals and mainnet contracts come from the gateway's token catalog.
import { TOKEN_DEFS, isToken, type TokenDef, type TokenSymbol } from '../../../src/tokens/index.ts';

export type { TokenSymbol };
export { isToken };

/** Network names as wallets show them (never translated). */
export const NETWORK_NAMES: Readonly<Record<string, string>> = {
  bitcoin: 'Bitcoin', litecoin: 'Litecoin', dogecoin: 'Dogecoin', ethereum: 'Ethereum',
  bsc: 'BNB Smart Chain', tron: 'Tron', xrp: 'XRP Ledger',
};

/** The token standard of a contract token, by its chain. */
const STANDARDS: Readonly<Record<string, string>> = { ethereum: 'ERC-20', bsc: 'BEP-20', tron: 'TRC-20' };

/** EVM chain ids (EIP-155) of the main networks: what a link names unless the server says otherwise. */
export const EVM_CHAIN_IDS: Readonly<Record<string, number>> = { ethereum: 1, bsc: 56 };

export interface TokenNames {
  /** The coin's ticker: USDT, ETH. */
  coin: string;
  /** The network alone: Tron. */
  network: string;
  /** The network with the token standard: Tron (TRC-20); the network alone for a chain's own coin. */
  networkFull: string;
}

export const tokenDef = (token: string): TokenDef | undefined => (isToken(token) ? TOKEN_DEFS[token] : undefined);

export function tokenNames(token: string): TokenNames {
  const def = tokenDef(token);
  const coin = token.split('_')[0];
  if (!def) return { coin, network: '', networkFull: '' };
  const network = NETWORK_NAMES[def.chain] ?? def.chain;
  const standard = def.native ? undefined : STANDARDS[def.chain];
  return { coin, network, networkFull: standard ? `${network} (${standard})` : network };
}

/** The contract of a token: the server's TOKEN_CONTRACTS override, else the mainnet one. */
export const contractOf = (token: string, overrides: Readonly<Record<string, string>>): string | undefined =>
  overrides[token] ?? tokenDef(token)?.contract;

/**
 * The chain id an EVM link names: the server's (its node's, a test network on a staging gateway),
 * null while its node has not said (no link), else the main network's; undefined off the EVM chains.
 */
export function chainIdOf(chain: string, server: Readonly<Record<string, number | null>>): number | null | undefined {
  if (EVM_CHAIN_IDS[chain] === undefined) return undefined;
  if (!Object.hasOwn(server, chain)) return EVM_CHAIN_IDS[chain];
  const id = server[chain];
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null;
}
