// Missed events of a recovered connection, held until its handshake passed (spec 5: a credential
// ended meanwhile hears nothing more). socket.io writes a restored connection's missed events to
// the wire as it restores its state, before any namespace middleware has read the credential: a
// dashboard member removed, a CLI whose key was revoked, would be handed the events of the recovery
// window on reconnecting, then refused. The adapter's restore is wrapped so those events are held
// by socket id and written, in their order and as socket.io would have, only once the namespace
// accepted the connection, and only to the principal they were chosen for.
import type { Namespace, Socket } from 'socket.io';
import { RECOVERY_WINDOW_MS } from './events.ts';

/** A connection's state as socket.io's adapter restores it (socket.io-adapter's Session). */
interface RestoredSession { sid: string; missedPackets: unknown[][]; data?: unknown }
type RestoreSession = (pid: string, offset: string) => Promise<RestoredSession | null> | RestoredSession | null;
/** socket.io's EVENT packet type (socket.io-parser PacketType.EVENT). */
const EVENT_PACKET = 2;

export interface HoldRules<P> {
  /** Who the dropped connection was, from its saved `socket.data` (undefined: nobody accepted). */
  principalOf(data: unknown): P | undefined;
  /** Whether the returning credential may hear what was chosen for the one that dropped. */
  same(then: P, now: P): boolean;
}

export class RecoveryHold<P> {
  readonly #held = new Map<string, { packets: unknown[][]; at: number; then: P | undefined }>();
  readonly #rules: HoldRules<P>;

  constructor(nsp: Namespace, rules: HoldRules<P>) {
    this.#rules = rules;
    const adapter = nsp.adapter as unknown as { restoreSession?: RestoreSession };
    const restore = adapter.restoreSession?.bind(adapter);
    if (!restore) return;
    adapter.restoreSession = async (pid, offset) => {
      const session = await restore(pid, offset);
      if (!session) return session;
      // a connection that went away during its handshake never collects its entry
      const now = Date.now();
      for (const [id, h] of this.#held) if (now - h.at > RECOVERY_WINDOW_MS) this.#held.delete(id);
      this.#held.set(session.sid, { packets: session.missedPackets, at: now, then: rules.principalOf(session.data) });
      return { ...session, missedPackets: [] };
    };
  }

  /** The handshake was refused: its missed events are never sent. */
  drop(socketId: string): void {
    this.#held.delete(socketId);
  }

  /**
   * Writes the events held for an accepted connection; whether it was recovered. A credential other
   * than the one they were chosen for gets none of them, and the connection counts as a fresh one.
   */
  replay(socket: Socket, now: P): boolean {
    const held = this.#held.get(socket.id);
    if (!held) return socket.recovered;
    this.#held.delete(socket.id);
    if (held.then === undefined || !this.#rules.same(held.then, now)) return false;
    const write = (socket as unknown as { packet(p: { type: number; data: unknown[] }): void }).packet.bind(socket);
    for (const data of held.packets) write({ type: EVENT_PACKET, data });
    return socket.recovered;
  }
}
