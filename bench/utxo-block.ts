// A Bitcoin-family block against the watched addresses (issue "Live chains II"): a Litecoin 0.21
// `getblock <hash> 2` answer of 2,500 transactions with 5,000 P2WPKH outputs, one in ten paying one
// of 1,000,000 watched deposit addresses held in the watcher's AddressIndex.
//  - scan: the parsed block turned into transfers by the reader's code (blockTransfers, with its address normalisation) (each output's address,
//    its amount in base units, outputs summed per transaction and address) and matched against the index; the
//    fetch and its JSON parsing are not counted. Target: < 20 ms.
//  - fetch + parse: UtxoReader.block() against a local HTTP node serving that block (request,
//    JSON parsing, transfers), median of the runs.
// Run: node bench/utxo-block.ts
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeSegwit } from '../src/chains/addresses/encoding.ts';
import { UTXO_NETWORKS } from '../src/chains/addresses/index.ts';
import { AddressIndex } from '../src/chains/watch/address-index.ts';
import { matchTransfers } from '../src/chains/watch/deposit-feed.ts';
import { NodeEndpoints } from '../src/chains/rpc/endpoints.ts';
import { UtxoReader, UtxoRpc } from '../src/chains/utxo/index.ts';
import { blockTransfers, type NodeTx } from '../src/chains/utxo/node-shapes.ts';

const RUNS = 20;
const WATCHED = 1_000_000;
const OUTPUTS = 5_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const network = UTXO_NETWORKS.litecoin.main;

const watchedHashes: string[] = [];
const index = new AddressIndex(WATCHED);
let t0 = performance.now();
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
for (let i = 0; i < WATCHED; i++) {
  if (i < OUTPUTS) {
    const h = crypto.randomBytes(20);
    watchedHashes.push(h.toString('hex'));
    index.add(encodeSegwit('ltc', 0, h));
  } else {
    // the rest only fill the index: strings of an address's length and alphabet (encoding a million costs half a minute here)
    const r = crypto.randomBytes(38);
    let a = 'ltc1q';
    for (const b of r) a += BECH32[b & 31];
    index.add(a);
  }
}
const indexMs = performance.now() - t0;

const txs: NodeTx[] = [];
for (let i = 0; i < OUTPUTS / 2; i++) {
  const vout = [0, 1].map((n) => {
    const k = i * 2 + n;
    // one output in ten pays a watched address
    const hash = k % 10 === 0 ? watchedHashes[k] : crypto.randomBytes(20).toString('hex');
    const address = encodeSegwit('ltc', 0, Buffer.from(hash, 'hex'));
    return { value: 0.001 + k / 1e8, n, scriptPubKey: { asm: `0 ${hash}`, hex: `0014${hash}`, reqSigs: 1, type: 'witness_v0_keyhash', addresses: [address] }, ismweb: false };
  });
  const txid = crypto.randomBytes(32).toString('hex');
  txs.push({ txid, vin: [{ txid: crypto.randomBytes(32).toString('hex'), vout: 0 }], vout });
}

// the reader's own address normalisation, as the watcher's scan runs it
const normalizer = new UtxoReader('litecoin', new UtxoRpc(new NodeEndpoints(['http://127.0.0.1:1'])));
const normalize = (a: string) => normalizer.normalizeAddress(a);
const scans: number[] = [];
let matched = 0;
for (let r = 0; r < RUNS; r++) {
  t0 = performance.now();
  const transfers = blockTransfers(txs, network, 'LTC', normalize);
  matched = matchTransfers(index, transfers).length;
  scans.push(performance.now() - t0);
}

// the same block served by a local node
const hash = crypto.randomBytes(32).toString('hex');
const block = { hash, height: 2_500_000, previousblockhash: crypto.randomBytes(32).toString('hex'), time: 1_700_000_000, tx: txs };
const answers: Record<string, unknown> = {
  getblockhash: hash, getblockchaininfo: { chain: 'main' }, getblock: block,
};
// the node's side is not what is measured: the block's answer is written once
const blockBody = JSON.stringify({ result: block, error: null, id: 1 });
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
    const result = call.method === 'getblockhash' && call.params[0] === 0 ? '12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2' : answers[call.method];
    res.setHeader('content-type', 'application/json');
    res.end(call.method === 'getblock' && call.id === 1 ? blockBody : JSON.stringify({ result, error: null, id: call.id }));
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const reader = new UtxoReader('litecoin', new UtxoRpc(new NodeEndpoints([`http://127.0.0.1:${(server.address() as AddressInfo).port}`])));
await reader.network();
const fetches: number[] = [];
let bytes = 0;
for (let r = 0; r < RUNS; r++) {
  t0 = performance.now();
  const b = await reader.block(2_500_000n);
  fetches.push(performance.now() - t0);
  if (!b || b.transfers.length !== OUTPUTS) throw new Error('the served block was not read whole');
}
bytes = blockBody.length;
server.close();

console.log(JSON.stringify({
  bench: 'utxo-block', watched: WATCHED, outputs: OUTPUTS, matched, index_build_ms: Math.round(indexMs), index_mb: +(index.bytes / 2 ** 20).toFixed(1),
  scan_ms_median: +median(scans).toFixed(2), scan_target_ms: 20, fetch_parse_ms_median: +median(fetches).toFixed(2), block_json_kb: Math.round(bytes / 1024),
}));
