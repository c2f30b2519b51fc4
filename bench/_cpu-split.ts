// Where the CPU of one side of a bench pair goes, per request (Linux /proc; nothing elsewhere). On a
// machine shared with other work, requests a second move with the neighbours' load, but the CPU
// each request costs in each process moves much less: on 2 cores where the service, PostgreSQL,
// the baseline and the load all compete, throughput ≈ cores / (sum of these costs), so comparing
// the sums of two sides (or two versions) says what a change did when req/s alone cannot.
// Counted: this process split by thread (the event loop, V8's helper threads — parallel and
// concurrent GC, background compilation — and worker threads such as the address deriver), the
// PostgreSQL backends of the bench's database, the baseline's process and the load's own process.
import fs from 'node:fs';

/** Clock ticks a second of /proc's utime and stime (USER_HZ: 100 on Linux whatever the kernel's HZ). */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process or thread, in ms; undefined when it is gone or /proc is absent. */
function cpuMsOf(statPath: string): number | undefined {
  try {
    const stat = fs.readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * How long a thread was ready to run but waited for a core (Linux schedstat's second field, ns), in
 * ms; undefined without schedstats. CPU time says what a request costs; this says how long the
 * event loop, with work to do, stood in the run queue behind other threads and processes.
 */
function waitedMsOf(schedstatPath: string): number | undefined {
  try {
    const waited = Number(fs.readFileSync(schedstatPath, 'utf8').split(' ')[1]);
    return Number.isFinite(waited) ? waited / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/** The run-queue wait of a side's event loop: this process's main thread or the baseline's (its thread id is its pid). */
function eventLoopWaitedMs(side: 'service' | 'bare', barePid: number | undefined): number | undefined {
  if (side === 'service') return waitedMsOf(`/proc/self/task/${process.pid}/schedstat`);
  return barePid ? waitedMsOf(`/proc/${barePid}/task/${barePid}/schedstat`) : undefined;
}

/** The split's key for the event loop's run-queue wait: not CPU, so left out of the CPU figures. */
const WAITED = 'event loop waited for a core';

/** This process's threads grouped by name: Node names the event loop MainThread, V8's pool V8Worker, a Worker WorkerThread. */
function ownThreads(): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[] = [];
  try { tids = fs.readdirSync('/proc/self/task'); } catch { return out; }
  for (const tid of tids) {
    const ms = cpuMsOf(`/proc/self/task/${tid}/stat`);
    if (ms === undefined) continue;
    let name = 'other';
    try { name = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(); } catch { /* gone */ }
    const group = name === 'MainThread' ? 'event loop' : name === 'V8Worker' ? 'V8 helpers' : name === 'WorkerThread' ? 'workers' : 'other';
    out.set(group, (out.get(group) ?? 0) + ms);
  }
  return out;
}

/** Whether a pid is a backend of the database, read once per pid (the look runs every POLL_MS in the service's process). */
const titled = new Map<string, boolean>();

/** The PostgreSQL backends (same host) serving `database`: their process title names it. */
function backendsOf(database: string): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[] = [];
  try { pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)); } catch { return out; }
  for (const pid of pids) {
    let serves = titled.get(pid);
    if (serves === undefined) {
      let title = '';
      try { title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { /* gone */ }
      serves = title.startsWith('postgres: ') && title.split(' ').includes(database);
      titled.set(pid, serves);
    }
    if (!serves) continue;
    const ms = cpuMsOf(`/proc/${pid}/stat`);
    if (ms !== undefined) out.set(Number(pid), ms);
  }
  return out;
}

/** How often backends are looked at during a slice: a pool opens and closes connections as it goes. */
const POLL_MS = 250;

/** CPU ms of one measured slice, by where it went. */
export type CpuSplit = Map<string, number>;

export interface CpuProbe {
  /** Starts counting; `end(loadCpuMs)` stops and gives the slice's split (loadCpuMs: what the load process reported). */
  start(): Slice;
}

interface Slice { end(loadCpuMs: number | undefined): CpuSplit }

/**
 * One side of a pair: 'service' counts this process's threads, 'bare' the baseline's process
 * (`barePid`); both count the backends of `database` (a backend that starts during the slice counts
 * whole, one that ends counts up to the last look at it) and the load process.
 */
export function cpuProbe(opts: { database: string; barePid: number | undefined; side: 'service' | 'bare' }): CpuProbe {
  return {
    start() {
      const own = opts.side === 'service' ? ownThreads() : new Map<string, number>();
      const bare = opts.side === 'bare' && opts.barePid ? cpuMsOf(`/proc/${opts.barePid}/stat`) : undefined;
      const waited = eventLoopWaitedMs(opts.side, opts.barePid);
      const first = backendsOf(opts.database);
      const last = new Map(first);
      const look = () => { for (const [pid, ms] of backendsOf(opts.database)) last.set(pid, ms); };
      const timer = setInterval(look, POLL_MS);
      return {
        end(loadCpuMs) {
          clearInterval(timer);
          look();
          const split: CpuSplit = new Map();
          for (const [k, v] of ownThreads()) if (opts.side === 'service') split.set(k, v - (own.get(k) ?? 0));
          if (bare !== undefined) split.set('bare node', (cpuMsOf(`/proc/${opts.barePid}/stat`) ?? bare) - bare);
          let pg = 0;
          for (const [pid, ms] of last) pg += ms - (first.get(pid) ?? 0);
          if (last.size > 0) split.set('PostgreSQL', pg);
          if (loadCpuMs !== undefined) split.set('load', loadCpuMs);
          const waitedNow = eventLoopWaitedMs(opts.side, opts.barePid);
          if (waited !== undefined && waitedNow !== undefined) split.set(WAITED, waitedNow - waited);
          return split;
        },
      };
    },
  };
}

/** Sums slices. */
export function addSplits(splits: readonly CpuSplit[]): CpuSplit {
  const out: CpuSplit = new Map();
  for (const s of splits) for (const [k, v] of s) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

/** "event loop 0.31, V8 helpers 0.06, …, total 0.85" in ms per request; '' when nothing was read. */
export function perRequest(split: CpuSplit, requests: number): { text: string; total: number } {
  const cpu = [...split].filter(([k]) => k !== WAITED);
  if (cpu.length === 0 || requests === 0) return { text: '', total: 0 };
  const parts = cpu.filter(([, v]) => v > 0).map(([k, v]) => `${k} ${(v / requests).toFixed(3)}`);
  const total = cpu.reduce((a, [, v]) => a + v, 0) / requests;
  return { text: `${parts.join(', ')}, total ${total.toFixed(3)}`, total };
}

/** Ms a request the side's event loop waited for a core, as text ('?' where schedstats are not kept). */
export function waitedPerRequest(split: CpuSplit, requests: number): string {
  const ms = split.get(WAITED);
  return ms === undefined || requests === 0 ? '?' : (ms / requests).toFixed(3);
}
