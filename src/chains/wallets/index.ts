// Door of chains/wallets: the service's keys (hot wallets and deposit addresses, from
// WALLET_MNEMONIC) and the hot wallets as the operator sees them.
export { WalletKeys } from './keys.ts';
export { HotWallets, BALANCES_MAX_AGE_MS, type BalanceReader, type WalletJson } from './hot-wallets.ts';
export { registerWalletRoutes } from './routes.ts';
export { OwnAddresses, OWN_ADDRESS, tokenContractAddress } from './own-addresses.ts';
