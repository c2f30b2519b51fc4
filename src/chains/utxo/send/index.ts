// Door of the Bitcoin-family sending half: the transfer family, its fee quotes and balances.
export { UtxoFamily } from './family.ts';
export { UtxoFeeQuoter, combinedFeeQuoter } from './fee-quoter.ts';
export { utxoWalletBalances } from './wallet-balance.ts';
export { depositTxsFromDb, type DepositTxs } from './deposit-outputs.ts';
