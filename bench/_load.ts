// The load generator of bench/payments.ts, in a Node process of its own (so neither side pays for
// the client): autocannon with BENCH_CONNECTIONS connections for the given seconds. Argument: a JSON
// file holding the job `{url, seconds, kind, keys?, tokens?}`; prints the result as one JSON line (with the CPU this process used,
// the answers counted by status and a few bodies of each non-2xx status).
import crypto from 'node:crypto';
import fs from 'node:fs';
import autocannon from 'autocannon';

interface Job { url: string; seconds: number; kind: 'create' | 'create-keyed' | 'checkout' | 'webhook-test' | 'bare-insert' | 'bare-select'; keys?: string[]; tokens?: string[] }
const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as Job;
let n = 0;
const key = () => `Bearer ${job.keys![n % job.keys!.length]}`;
const requests: Record<Job['kind'], autocannon.Request> = {
  create: { method: 'POST', path: '/v1/payments', setupRequest: (req) => ({ ...req, headers: { 'content-type': 'application/json', authorization: key() }, body: JSON.stringify({ order_id: `bench-${n++}-${crypto.randomBytes(3).toString('hex')}`, amount_usd: '25.00', token: 'ETH' }) }) },
  // A fresh Idempotency-Key on each creation: claimed, then its answer sealed and stored before it is sent.
  'create-keyed': { method: 'POST', path: '/v1/payments', setupRequest: (req) => { const id = `bench-${n++}-${crypto.randomBytes(3).toString('hex')}`; return { ...req, headers: { 'content-type': 'application/json', authorization: key(), 'idempotency-key': id }, body: JSON.stringify({ order_id: id, amount_usd: '25.00', token: 'ETH' }) }; } },
  'bare-insert': { method: 'POST', path: '/row', setupRequest: (req) => ({ ...req, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order_id: `bare-${n++}-${crypto.randomBytes(3).toString('hex')}`, amount_usd: '25.00', token: 'ETH' }) }) },
  checkout: { method: 'GET', setupRequest: (req) => ({ ...req, path: `/checkout/${job.tokens![n++ % job.tokens!.length]}` }) },
  'bare-select': { method: 'GET', setupRequest: (req) => ({ ...req, path: `/row/r${1 + (n++ % 2000)}` }) },
  'webhook-test': { method: 'POST', path: '/v1/webhook/test', setupRequest: (req) => { const h = { authorization: key() }; n++; return { ...req, headers: h }; } },
};
// Answers counted by status, with the first few bodies of each non-2xx status, so a run that saw
// non-2xx answers says which ones and why (autocannon itself only counts them).
const statuses: Record<string, number> = {};
const samples: Record<string, string[]> = {};
const SAMPLES_PER_STATUS = 3;
const onResponse = (status: number, body: string) => {
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (status >= 200 && status < 300) return;
  const kept = (samples[status] ??= []);
  if (kept.length < SAMPLES_PER_STATUS) kept.push(body.slice(0, 300));
};
const request = { ...requests[job.kind], onResponse };
// Every answer's latency, counted by tenth of a millisecond: the parent merges the runs of a side
// (bench/payments.ts measures each side in two halves) into the one distribution a single run of
// the whole length would give, which the percentiles of each half cannot be combined into.
const latency: Record<string, number> = {};
const cpu0 = process.cpuUsage();
const running = autocannon({ url: job.url, connections: Number(process.env.BENCH_CONNECTIONS ?? 50), duration: job.seconds, requests: [request] });
running.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
  const tenth = Math.round(ms * 10);
  latency[tenth] = (latency[tenth] ?? 0) + 1;
});
const r = await running;
// this process's own CPU for the run (bench/_cpu-split.ts counts it with the sides' processes)
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ requests: r.requests.total, seconds: r.duration, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, cpu_ms: (cpu.user + cpu.system) / 1000, statuses, samples, latency }));
