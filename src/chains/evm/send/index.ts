// Door of chains/evm/send: sending on Ethereum and BNB Smart Chain (the transfer family, its RPC
// calls and fees), the hot wallets' balances there, and the market's network fee quotes.
export { EvmFamily, STUCK_AFTER_MS } from './family.ts';
export { EvmRpc, RPC_TIMEOUT_MS } from './rpc.ts';
export { EvmFeeQuoter, sweepGas, NATIVE_TRANSFER_GAS, TOKEN_TRANSFER_GAS } from './fee-quoter.ts';
export { evmWalletBalances } from './wallet-balances.ts';
export { feeFor, bumpFee, maxPrice, currentPrice, BUMP_PERCENT, type EvmFee, type NetworkPrices } from './fees.ts';
