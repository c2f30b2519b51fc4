// The worker thread of address-deriver.ts: derives deposit addresses off the main thread. One
// secp256k1 multiplication per address is the largest CPU cost of creating a payment with a coin,
// and the event loop serving requests should not pay it.
import { parentPort, workerData } from 'node:worker_threads';
import { deriveDepositAddress, seedFromMnemonic } from '../chains/addresses/index.ts';
import type { DeriveReply, DeriveRequest } from './address-deriver.ts';

const seed = seedFromMnemonic((workerData as { mnemonic: string }).mnemonic);
const port = parentPort!;

port.on('message', (m: DeriveRequest) => {
  let reply: DeriveReply;
  try {
    reply = { id: m.id, address: deriveDepositAddress(seed, m.chain, m.livemode, m.index).address };
  } catch (err) {
    reply = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
