import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AttemptLimiter, destinationKey } from './concurrency.ts';

// A task the test finishes by hand.
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => { open = r; });
  return { done, open };
}
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('AttemptLimiter', () => {
  it('keeps at most M in flight per host while other hosts go ahead', async () => {
    const limiter = new AttemptLimiter({ maxInFlight: 4, maxPerHost: 2 });
    const hang = gate();
    const started: string[] = [];
    const task = (name: string, until: Promise<void>) => async () => { started.push(name); await until; return name; };
    const slow = [1, 2, 3].map((n) => limiter.run('slow.example', task(`slow${n}`, hang.done)));
    const fast = limiter.run('fast.example', task('fast', Promise.resolve()));
    await tick();
    expect(started).toEqual(['slow1', 'slow2', 'fast']);
    expect(await fast).toBe('fast');
    expect(limiter.inFlightFor('slow.example')).toBe(2);
    expect(limiter.waiting).toBe(1);
    hang.open();
    expect(await Promise.all(slow)).toEqual(['slow1', 'slow2', 'slow3']);
    expect(limiter.inFlight).toBe(0);
  });

  it('keeps at most N in flight overall, and starts waiters in arrival order', async () => {
    const limiter = new AttemptLimiter({ maxInFlight: 2, maxPerHost: 2 });
    const g = gate();
    const started: string[] = [];
    const all = ['a', 'b', 'c', 'd'].map((h) => limiter.run(h, async () => { started.push(h); await g.done; }));
    await tick();
    expect(started).toEqual(['a', 'b']);
    expect(limiter.inFlight).toBe(2);
    g.open();
    await Promise.all(all);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees the slot when a task throws, and passes the error on', async () => {
    const limiter = new AttemptLimiter({ maxInFlight: 1, maxPerHost: 1 });
    await expect(limiter.run('h', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(limiter.inFlight).toBe(0);
    expect(await limiter.run('h', async () => 7)).toBe(7);
  });

  it('tryAcquire gives a slot or null, and a double release frees only once', () => {
    const limiter = new AttemptLimiter({ maxInFlight: 2, maxPerHost: 1 });
    const a = limiter.tryAcquire('x')!;
    expect(limiter.tryAcquire('x')).toBeNull();
    const b = limiter.tryAcquire('y')!;
    expect(limiter.tryAcquire('z')).toBeNull();
    a();
    a();
    expect(limiter.inFlight).toBe(1);
    expect(limiter.hasRoomFor('x')).toBe(true);
    b();
    expect(limiter.inFlight).toBe(0);
  });

  it('refuses limits below 1', () => {
    expect(() => new AttemptLimiter({ maxInFlight: 0, maxPerHost: 1 })).toThrow(RangeError);
    expect(() => new AttemptLimiter({ maxInFlight: 2, maxPerHost: 1.5 })).toThrow(RangeError);
  });

  it('property: limits always hold and every task runs', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }),
      fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat(3)), { maxLength: 30 }),
      async (max, perHost, jobs) => {
        const limiter = new AttemptLimiter({ maxInFlight: max, maxPerHost: perHost });
        let peak = 0;
        const peakByHost = new Map<string, number>();
        const results = await Promise.all(jobs.map(([host, waits], i) => limiter.run(host, async () => {
          peak = Math.max(peak, limiter.inFlight);
          peakByHost.set(host, Math.max(peakByHost.get(host) ?? 0, limiter.inFlightFor(host)));
          for (let k = 0; k < waits; k++) await tick();
          return i;
        })));
        expect(results).toEqual(jobs.map((_, i) => i));
        expect(peak).toBeLessThanOrEqual(max);
        for (const v of peakByHost.values()) expect(v).toBeLessThanOrEqual(perHost);
        expect(limiter.inFlight).toBe(0);
        expect(limiter.waiting).toBe(0);
      },
    ), { numRuns: 50 });
  });
});

describe('destinationKey', () => {
  it('is the lower-case host name, port ignored', () => {
    expect(destinationKey('https://Hooks.Example.com:8443/x')).toBe('hooks.example.com');
    expect(destinationKey('not a url')).toBe('');
  });
});
