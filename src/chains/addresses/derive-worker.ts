// The worker thread of DepositAddressDeriver (derive-off-thread.ts): derives blocks of deposit
// addresses so the event loop serving requests does not pay the secp256k1 multiplication each
// one costs. It holds the mnemonic it was started with and nothing else.
import { parentPort, workerData } from 'node:worker_threads';
import { deriveDepositAddress, seedFromMnemonic } from './derive.ts';
import type { BlockReply, BlockRequest } from './derive-off-thread.ts';
import { yieldToRequests } from './worker-priority.ts';
import { setLiveNetwork } from './live-networks.ts';
import { UTXO_CHAINS } from './networks.ts';

yieldToRequests();
const seed = seedFromMnemonic((workerData as { mnemonic: string }).mnemonic);
const port = parentPort!;

port.on('message', (m: BlockRequest) => {
  let reply: BlockReply;
  try {
    // the process's live networks as of this request (the worker has its own copy of the setting)
    for (const chain of UTXO_CHAINS) setLiveNetwork(chain, m.liveNetworks[chain] ?? 'main');
    reply = { id: m.id, addresses: m.indexes.map((i) => deriveDepositAddress(seed, m.chain, m.livemode, i).address) };
  } catch (err) {
    reply = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
