// The derivation worker runs at a lower scheduling priority than the rest of the process.
//
// Its work is prepared ahead (address-reserve.ts keeps blocks of addresses derived before they are
// needed), so it can wait; the event loop serving requests, and the database it waits on, cannot. On a
// busy machine with few cores every thread competes for them, and each time the worker preempts
// the event loop every request in flight waits. Measured on 2 cores under 50 concurrent payment
// creations: about 15% more payments a second, and less CPU per payment, with the worker at nice +5.
// When the machine is saturated the worker still gets a quarter of a normal thread's share, and a
// payment that finds no address ready waits for it, which leaves the worker the CPU it needs.
import fs from 'node:fs';
import os from 'node:os';

/** How much lower than the process the worker runs (nice levels; 19 is the lowest priority). */
export const WORKER_NICE_OFFSET = 5;
const LOWEST = 19;

/**
 * Lowers the calling thread's priority (Linux: a thread's own id names it to setpriority). Returns
 * the new nice value, or null where threads cannot be told apart (other systems) or it is refused;
 * the worker then simply runs at the process's priority.
 */
export function yieldToRequests(offset = WORKER_NICE_OFFSET): number | null {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return null;
    const nice = Math.min(LOWEST, os.getPriority(tid) + offset);
    os.setPriority(tid, nice);
    return os.getPriority(tid);
  } catch {
    return null;
  }
}
