// Door of chains/transfers: the chain-agnostic transfer machinery (intents, nonces, the worker's
// steps, retries, reporting) and the interface a chain family implements to plug into it.
export { TransferService, type TransferServiceOptions } from './service.ts';
export { ChainTransferPort, recordTransfer, type NewTransfer } from './intents.ts';
export { outgoingTransfers, outgoingAttempts, senderNonces, type TransferRow, type AttemptRow } from './schema.ts';
export { DEFAULT_RETRY_DELAYS_MS, retryDelay } from './backoff.ts';
export { NOTE_NOT_OURS, NOTE_NONCE_TAKEN, NOTE_INPUTS_TAKEN } from './stepper.ts';
export type {
  TransferFamily, TransferPurpose, TransferStatus, TransferOutcomes, Preparation, PrepareContext, SignedTx, BroadcastOutcome, Inclusion,
} from './types.ts';
export { TRANSFER_PURPOSES, ACTIVE_STATUSES, WAITING_FUNDS } from './types.ts';
