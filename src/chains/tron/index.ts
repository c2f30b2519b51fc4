// Door of chains/tron: Tron over java-tron's HTTP API (full node and solidity endpoints), read for
// the watcher (TRX transfers, TRC-20 Transfer logs, the solidified block) and written by the
// transfer machinery (locally signed TRX and TRC-20 transfers).
export { TronRpc, tronHex, tronBase58, TRON_RPC_TIMEOUT_MS } from './rpc.ts';
export { TronReader, tronBlockRef, tronLogContracts } from './reader.ts';
export { TronFamily, EXPIRATION_MS, TRC20_ENERGY, tronBroadcastOutcome } from './family.ts';
export { blockTransfers, TRANSFER_TOPIC } from './block-transfers.ts';
export { buildSigned, transferCallData } from './build.ts';
export { dbTimestamps, memoryTimestamps, type TronTimestamps } from './timestamps.ts';
