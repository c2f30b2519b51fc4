// Door of chains/evm/read: the EVM family's ChainReader.
export { EvmReader, READ_TIMEOUT_MS } from './reader.ts';
export { blockTransfers, TRANSFER_TOPIC } from './transfers.ts';
