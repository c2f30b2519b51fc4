// Matching a chain's block against the watched addresses, excluding the fetch (issue "Live chains
// III"): a Tron block of 5,000 TRC-20 transfers (block transactions and transaction infos as
// java-tron answers them, as the HTTP client parsed them: the fetch and its JSON parsing are not
// counted) and an XRP ledger of 1,000 payments (rippled's API v2 `ledger` answer), each turned into
// transfers by the family's code and looked up in an index
// of 10,000 watched addresses (XRP: service address + destination tag), as the watcher does it (the
// Tron reader is given the index and builds only the transfers that match). Targets: < 10 ms each.
// Each family's code first runs a few times on another block of the same shape (the watcher's code
// is compiled after its first blocks; neither family gains from running second), then `first` is
// the first run on the measured block and `ms` the median of the runs after it.
// Run: node bench/chain-matching.ts
import crypto from 'node:crypto';
import { blockTransfers, TRANSFER_TOPIC } from '../src/chains/tron/index.ts';
import { paymentsOfLedger } from '../src/chains/xrp/index.ts';
import { encodeXrpBase58Check } from '../src/chains/addresses/encoding.ts';
import type { TokenSymbol } from '../src/tokens/index.ts';
import { AddressIndex, matchTransfers } from '../src/chains/watch/index.ts';

const RUNS = 30;
const WARM_UP = 5;
const hex = (n: number) => crypto.randomBytes(n).toString('hex');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The first run (every address new to the reader) and the median of the runs after it, as wall time
 * and as this process's CPU time (on a machine shared by many processes the wall time mostly
 * measures waiting for a core; the CPU time is what the matching costs).
 */
function time(fn: () => number): { first_ms: number; ms: number; first_cpu_ms: number; cpu_ms: number; matched: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  let matched = 0;
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    matched = fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const r = (v: number) => Number(v.toFixed(2));
  return { first_ms: r(wall[0]), ms: r(median(wall.slice(1))), first_cpu_ms: r(cpu[0]), cpu_ms: r(median(cpu.slice(1))), matched };
}

/** A Tron block of 5,000 TRC-20 transfers, one in ten to a watched address. */
function tronBlock(watched: string[], contract: string): { txs: unknown[]; infos: unknown[] } {
  const txs: unknown[] = [];
  const infos: unknown[] = [];
  for (let i = 0; i < 5_000; i++) {
    const id = hex(32);
    // one in ten pays a watched address
    const to = i % 10 === 0 ? watched[i % watched.length] : hex(20);
    txs.push({ txID: id, ret: [{ contractRet: 'SUCCESS' }], raw_data: { contract: [{ type: 'TriggerSmartContract', parameter: { value: { owner_address: `41${hex(20)}`, contract_address: `41${contract}`, data: '' } } }] } });
    infos.push({ id, blockNumber: 1, receipt: { result: 'SUCCESS', energy_usage_total: 31_895 }, log: [{ address: contract, topics: [TRANSFER_TOPIC, hex(20).padStart(64, '0'), to.padStart(64, '0')], data: (1_000_000 + i).toString(16).padStart(64, '0') }] });
  }
  return { txs, infos };
}

function tron(): ReturnType<typeof time> {
  const contract = hex(20);
  const watched = Array.from({ length: 10_000 }, () => hex(20));
  const index = new AddressIndex(watched.length);
  // keyed as the watcher keys Tron addresses (TronReader.normalizeAddress: hex, 41…)
  for (const a of watched) index.add(`41${a}`);
  const contracts = new Map<string, TokenSymbol>([[contract, 'USDT_TRC20']]);
  const match = (b: { txs: unknown[]; infos: unknown[] }) => matchTransfers(index, blockTransfers(b.txs, b.infos, contracts, index)).length;
  const other = tronBlock(watched, contract);
  for (let i = 0; i < WARM_UP; i++) match(other);
  const block = tronBlock(watched, contract);
  return time(() => match(block));
}

/** An XRP ledger of 1,000 payments, one in two to the service address. */
function xrpLedger(service: string): unknown[] {
  return Array.from({ length: 1_000 }, (_, i) => ({
    tx_json: { TransactionType: 'Payment', Account: encodeXrpBase58Check(0, crypto.randomBytes(20)), Destination: i % 2 ? service : encodeXrpBase58Check(0, crypto.randomBytes(20)), DeliverMax: String(1_000_000 + i), DestinationTag: i, Fee: '12', Sequence: i },
    meta: { TransactionIndex: i, TransactionResult: 'tesSUCCESS', delivered_amount: String(1_000_000 + i), AffectedNodes: [] },
    hash: hex(32).toUpperCase(), validated: true,
  }));
}

function xrp(): ReturnType<typeof time> {
  const service = encodeXrpBase58Check(0, crypto.randomBytes(20));
  const index = new AddressIndex(10_000);
  for (let i = 0; i < 10_000; i++) index.add(service, i);
  const match = (txs: unknown[]) => matchTransfers(index, paymentsOfLedger(txs)).length;
  const other = xrpLedger(service);
  for (let i = 0; i < WARM_UP; i++) match(other);
  const txs = xrpLedger(service);
  return time(() => match(txs));
}

const t = tron();
const x = xrp();
console.log(JSON.stringify({
  tron_block_5000_trc20: { ...t, target_ms: 10 },
  xrp_ledger_1000_payments: { ...x, target_ms: 10 },
}, null, 2));
