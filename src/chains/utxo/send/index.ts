// Door of the Bitcoin-family sending half: the transfer family, its fee quotes and the hot wallets' tracked outputs.
export { UtxoFamily } from './family.ts';
export { HotOutputs, utxoHotOutputs } from './hot-outputs.ts';
export { UtxoFeeQuoter } from './fee-quoter.ts';
export { depositTxsFromDb, type DepositTxs } from './deposit-outputs.ts';
