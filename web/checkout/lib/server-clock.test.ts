import { describe, expect, it } from 'vitest';
import { heardServerTime, serverNow } from './server-clock.ts';

describe('the gateway clock of the checkout page', () => {
  it('a device clock minutes off is corrected by the Date header; within 2 s the device is trusted; no header changes nothing', () => {
    const device = Date.now();
    heardServerTime(new Date(device - 10 * 60_000).toUTCString(), device);
    // the header's whole second, taken at its middle
    expect(Math.abs(serverNow() - (device - 10 * 60_000)) < 1_500).toBe(true);
    heardServerTime(null);
    expect(Math.abs(serverNow() - (device - 10 * 60_000)) < 1_500 + 1_000).toBe(true);
    heardServerTime('not a date');
    expect(Math.abs(serverNow() - (device - 10 * 60_000)) < 1_500 + 1_000).toBe(true);
    heardServerTime(new Date(Date.now() + 1_000).toUTCString());
    expect(Math.abs(serverNow() - Date.now()) <= 1).toBe(true);
  });
});
