import { afterEach, describe, expect, it } from 'vitest';
import { Live } from './live.ts';
import { Session } from './session.ts';

/** A socket.io client stand-in: records handlers so the test can play server events. */
function fakeIo() {
  const handlers = new Map<string, (...a: unknown[]) => void>();
  let any: ((event: string, ...a: unknown[]) => void) | null = null;
  const socket = {
    connected: true,
    on: (e: string, fn: (...a: unknown[]) => void) => { handlers.set(e, fn); },
    onAny: (fn: (event: string, ...a: unknown[]) => void) => { any = fn; },
    emit: () => {},
    close: () => {},
  };
  return { io: () => socket, serverSends: (event: string, payload: unknown) => any?.(event, payload), handlers };
}

function signedIn(session: Session, merchant: Record<string, unknown>) {
  session.state = { status: 'signed-in', token: 't', expiresAt: Date.now() + 900_000, role: 'viewer', merchant, user: { id: 'u1', email: 'v@example.com' } };
}

const w = globalThis as unknown as { window?: unknown };
afterEach(() => { delete w.window; });

describe('the dashboard socket', () => {
  it('takes merchant:update into the signed-in merchant (live mode, settings, name: spec 6.3)', async () => {
    const fake = fakeIo();
    w.window = { io: fake.io };
    const session = new Session();
    const live = new Live(session);
    signedIn(session, { id: 'm1', name: 'Shop', live_enabled: false });
    const seen: unknown[] = [];
    session.subscribe((s) => seen.push(s.status === 'signed-in' ? s.merchant.live_enabled : s.status));
    session.onToken('t');
    await new Promise((r) => setTimeout(r, 0));
    fake.serverSends('merchant:update', { id: 'm1', name: 'Shop & Co', live_enabled: true });
    expect(session.state.status === 'signed-in' && session.state.merchant).toEqual({ id: 'm1', name: 'Shop & Co', live_enabled: true });
    expect(seen.at(-1)).toBe(true);
    live.close();
  });
});
