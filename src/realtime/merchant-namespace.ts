// The dashboard socket (spec 4.5, 5 "Socket authentication"): an access token in the handshake,
// the `session` event, `auth:refresh`, the end at the token's expiry, and the rooms events go to.
import type { Namespace, Socket } from 'socket.io';
import type { UserAuth } from '../accounts/index.ts';
import { AppError } from '../platform/errors.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import {
  AUTH_ERROR, AUTH_REFRESH, INVALID_TOKEN, MISSING_TOKEN, SESSION, SUSPENDED, TOKEN_EXPIRED, UNAUTHORIZED, WRONG_KIND,
} from './events.ts';
import { credentialShape } from './credential-kind.ts';
import { revokeCode, type Role } from './routing.ts';
import { TypingGate, typingOf } from './typing.ts';
import { RecoveryHold } from './recovery-hold.ts';
import { SUPPORT_TYPING } from '../support/index.ts';

export interface UserAuthenticator {
  /** Throws AppError 401 for a bad token, 403 for a suspended account (accounts' Authenticator.user). */
  user(bearer: string | undefined): Promise<UserAuth>;
  /** Why a session ended (its revoked reason), null while it is open. */
  sessionEnd(sessionId: string): Promise<string | null>;
}

export const merchantRoom = (merchantId: string, role: Role): string => `m:${merchantId}:${role}`;
export const sessionRoom = (sessionId: string): string => `s:${sessionId}`;
/** Every socket of one member: events meant for the reader alone (e.g. `notification:read`); a member's own typing is not sent back to them. */
export const userRoom = (userId: string): string => `u:${userId}`;

/** A member reported typing in the support chat (passed on at most as TypingGate allows). */
export type OnTyping = (auth: UserAuth, typing: boolean) => void;
const ROLES: readonly Role[] = ['owner', 'developer', 'finance', 'viewer'];
export const allRoleRooms = (merchantId: string): string[] => ROLES.map((r) => merchantRoom(merchantId, r));
/** setTimeout's limit; a later expiry is re-armed when that timer fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface DashboardData {
  auth?: UserAuth;
  /** The handshake's member belongs to a suspended account: the connection only hears why it ends. */
  suspended?: boolean;
}

export interface SessionInfo {
  user: { id: string; email: string };
  role: string;
  merchant_id: string;
  expires_at: string;
  recovered: boolean;
}

/** A refused handshake: connect_error `unauthorized` with `err.data.code` (spec 5). */
export function refusal(code: string): Error & { data: { code: string } } {
  return Object.assign(new Error(UNAUTHORIZED), { data: { code } });
}

/** The socket code for a credential the accounts room refused. */
function codeOf(err: unknown): string {
  if (err instanceof AppError && err.status === 403) return SUSPENDED;
  return INVALID_TOKEN;
}

async function authenticate(authn: UserAuthenticator, token: unknown): Promise<{ auth: UserAuth } | { code: string }> {
  if (typeof token !== 'string' || token === '') return { code: MISSING_TOKEN };
  const shape = credentialShape(token);
  if (shape === 'other_kind') return { code: WRONG_KIND };
  if (shape === 'garbage') return { code: INVALID_TOKEN };
  try {
    return { auth: await authn.user(token) };
  } catch (err) {
    return { code: codeOf(err) };
  }
}

function sessionInfo(auth: UserAuth, recovered: boolean): SessionInfo {
  return {
    user: { id: auth.userId, email: auth.email }, role: auth.role, merchant_id: auth.merchantId,
    expires_at: auth.tokenExpiresAt.toISOString(), recovered,
  };
}

export class MerchantSockets {
  readonly #authn: UserAuthenticator;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** Missed events of recovered connections, held until their handshake passed; replayed to the same member in the same role only. */
  readonly #held: RecoveryHold<UserAuth>;

  constructor(nsp: Namespace, authn: UserAuthenticator, clock: Clock, log: Logger, onTyping: OnTyping = () => {}) {
    this.#authn = authn;
    this.#log = log;
    this.#clock = clock;
    // They were chosen by the rooms of the member who dropped: another member's token, or the same
    // member in another role (a viewer now, an owner then), gets none of them.
    this.#held = new RecoveryHold<UserAuth>(nsp, {
      principalOf: (data) => (data as DashboardData | undefined)?.auth,
      same: (then, now) => then.userId === now.userId && then.merchantId === now.merchantId && then.role === now.role,
    });
    // Runs on recovery too (skipMiddlewares: false), so a revoked session cannot come back.
    nsp.use((socket, next) => {
      authenticate(authn, (socket.handshake.auth as { token?: unknown } | undefined)?.token).then((r) => {
        // Spec 3: a suspended account gets a socket auth:error with code suspended; spec 5's handshake
        // refusals are missing_token, invalid_token and wrong_kind only, none of which this token is.
        // The connection is taken to say so and ended at once, in no room (a recovered one is taken
        // out of the rooms it came back with), with no session.
        if ('code' in r) this.#held.drop(socket.id);
        if ('code' in r && r.code === SUSPENDED) {
          for (const room of socket.rooms) if (room !== socket.id) socket.leave(room);
          (socket.data as DashboardData).suspended = true;
          return next();
        }
        if ('code' in r) return next(refusal(r.code));
        (socket.data as DashboardData).auth = r.auth;
        next();
      }, (err: unknown) => { this.#held.drop(socket.id); log.error({ err }, 'dashboard socket authentication failed'); next(refusal(INVALID_TOKEN)); });
    });
    nsp.on('connection', (socket: Socket) => {
      if ((socket.data as DashboardData).suspended) return this.end(socket, SUSPENDED);
      const auth = (socket.data as DashboardData).auth!;
      this.#enter(socket, auth);
      // missed events, in order, right after the connection is accepted and before `session`
      const recovered = this.#held.replay(socket, auth);
      socket.emit(SESSION, sessionInfo(auth, recovered));
      void this.#recheck(socket, auth, (socket.handshake.auth as { token: string }).token);
      socket.on(AUTH_REFRESH, async (token: unknown, ack?: unknown) => {
        const reply = typeof ack === 'function' ? (ack as (a: unknown) => void) : () => {};
        const r = await authenticate(authn, token);
        const current = (socket.data as DashboardData).auth!;
        if ('code' in r) return reply({ ok: false, error: r.code });
        // Another member's token cannot take this socket over.
        if (r.auth.userId !== current.userId) return reply({ ok: false, error: INVALID_TOKEN });
        this.#enter(socket, r.auth);
        reply({ ok: true, session: sessionInfo(r.auth, false) });
        void this.#recheck(socket, r.auth, token as string);
      });
      const gate = new TypingGate();
      socket.on(SUPPORT_TYPING, (arg: unknown) => {
        const typing = typingOf(arg);
        if (typing !== null && gate.pass(typing, this.#clock.now().getTime())) onTyping((socket.data as DashboardData).auth!, typing);
      });
      socket.on('disconnect', () => {
        this.#clearTimer(socket.id);
        if (gate.typing) onTyping((socket.data as DashboardData).auth!, false);
      });
    });
  }

  /** Joins the rooms of this credential (leaving those of a previous one) and arms the expiry. */
  #enter(socket: Socket, auth: UserAuth): void {
    (socket.data as DashboardData).auth = auth;
    for (const room of socket.rooms) if (room !== socket.id) socket.leave(room);
    socket.join([merchantRoom(auth.merchantId, auth.role), sessionRoom(auth.sessionId), userRoom(auth.userId)]);
    this.#arm(socket, auth.tokenExpiresAt);
  }

  /**
   * The credential was read before the socket joined its rooms: an end committed in between (a
   * removal, a role change, a sign-out, a suspension) went to rooms it was not in yet. Read once
   * more now that it is in them; anything ending it later reaches it there.
   */
  async #recheck(socket: Socket, auth: UserAuth, token: string): Promise<void> {
    let code: string | null = null;
    try {
      await this.#authn.user(token);
    } catch (err) {
      if (!(err instanceof AppError)) {
        // Nothing known either way: the client reconnects, and its handshake reads again.
        this.#log.error({ err }, 'dashboard socket authentication failed');
        if ((socket.data as DashboardData).auth === auth) socket.conn.close();
        return;
      }
      if (err.status === 403) code = SUSPENDED;
      else {
        // An open session with a refused token: it expired meanwhile.
        const reason = await this.#authn.sessionEnd(auth.sessionId).catch(() => undefined);
        code = reason === null ? TOKEN_EXPIRED : revokeCode(reason);
      }
    }
    // A later auth:refresh has its own recheck.
    if (code && socket.connected && (socket.data as DashboardData).auth === auth) this.end(socket, code);
  }

  #arm(socket: Socket, expiresAt: Date): void {
    this.#clearTimer(socket.id);
    const left = expiresAt.getTime() - this.#clock.now().getTime();
    const timer = setTimeout(() => {
      if (left > MAX_TIMER_MS) return this.#arm(socket, expiresAt);
      this.end(socket, TOKEN_EXPIRED);
    }, Math.max(0, Math.min(left, MAX_TIMER_MS)));
    timer.unref();
    this.#timers.set(socket.id, timer);
  }

  #clearTimer(id: string): void {
    const t = this.#timers.get(id);
    if (t) clearTimeout(t);
    this.#timers.delete(id);
  }

  /** Sends `auth:error` and disconnects: the socket is not recovered (a server disconnect). */
  end(socket: Socket, code: string): void {
    this.#clearTimer(socket.id);
    socket.emit(AUTH_ERROR, { code });
    socket.disconnect(true);
  }

  stop(): void {
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }
}
