// The operator's socket (namespace `/admin`), for the service's own team: it hears every
// merchant's support chat (`support:message`, `support:message:update`, `support:read`,
// `support:typing`, each with `merchant_id`) and relays its own typing to a merchant. The handshake
// carries ADMIN_TOKEN in `auth.token` (compared as the /admin routes compare it); without
// ADMIN_TOKEN the namespace does not exist. Refusals: connect_error `unauthorized` with
// `err.data.code` `missing_token` or `invalid_token`, or `rate_limited` once the client address has
// sent ADMIN_MAX_FAILURES (100) wrong admin tokens in a minute: the operator API's count (src/admin/guard.ts), shared, so
// a guess over either counts and over the limit both refuse, the right token too. An operator's
// socket coming back within the recovery window hears what it missed only once its token passed
// again: one that is not ADMIN_TOKEN (any more) hears none of it.
import type { IncomingMessage } from 'node:http';
import type { Namespace, Socket } from 'socket.io';
import { checkAdminToken } from '../admin/index.ts';
import { isIdShaped } from '../platform/fields.ts';
import { INVALID_TOKEN, MISSING_TOKEN, RATE_LIMITED } from './events.ts';
import { refusal } from './merchant-namespace.ts';
import { MAX_TYPING_NAME, TypingGate, typingOf, type TypingRelay } from './typing.ts';
import { ONE_PRINCIPAL, RecoveryHold } from './recovery-hold.ts';
import { DEFAULT_SUPPORT_NAME, SUPPORT_TYPING } from '../support/index.ts';

export const OPERATOR_NAMESPACE = '/admin';
export const OPERATOR_ROOM = 'operators';

export const TYPING_MERCHANT_REQUIRED = 'merchant_id is required';
export const TYPING_FLAG_REQUIRED = 'typing (true or false) is required';

type Ack = (answer: unknown) => void;

/** Where a handshake is counted: the HTTP server the /admin routes share, and the client address rule of TRUST_PROXY. */
export interface OperatorAdmission {
  server: object;
  clientAddress: (req: IncomingMessage) => string;
}

export function setUpOperatorNamespace(nsp: Namespace, adminToken: string, admission: OperatorAdmission, relay: (r: TypingRelay) => void, nowMs: () => number): void {
  // There is one operator credential: a connection that was accepted (the only kind socket.io keeps
  // for recovery) had it, and a returning one that passes has it too.
  const held = new RecoveryHold(nsp, ONE_PRINCIPAL);
  nsp.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const given = typeof token === 'string' && token !== '' ? token : undefined;
    const refuse = (err: Error) => {
      held.drop(socket.id);
      next(err);
    };
    // A missing token guesses nothing and is not counted, as a request without Authorization on /admin.
    checkAdminToken(admission.server, adminToken, given, admission.clientAddress(socket.request)).then((check) => {
      if (check === 'rate_limited') return refuse(refusal(RATE_LIMITED));
      if (check === 'invalid') return refuse(refusal(given === undefined ? MISSING_TOKEN : INVALID_TOKEN));
      next();
    }, (err: unknown) => refuse(err instanceof Error ? err : new Error(String(err))));
  });
  nsp.on('connection', (socket: Socket) => {
    socket.join(OPERATOR_ROOM);
    // missed events, in order, right after the connection is accepted
    held.replay(socket, true);
    // Per merchant: the gate and the name last signed, to say `false` as that name when the socket goes away.
    const gates = new Map<string, { gate: TypingGate; name: string }>();
    socket.on(SUPPORT_TYPING, (arg: unknown, ack?: unknown) => {
      const reply: Ack = typeof ack === 'function' ? (ack as Ack) : () => {};
      const a = (arg ?? {}) as { merchant_id?: unknown; name?: unknown };
      if (!isIdShaped(a.merchant_id)) return reply({ ok: false, error: TYPING_MERCHANT_REQUIRED });
      const typing = typingOf(arg);
      if (typing === null) return reply({ ok: false, error: TYPING_FLAG_REQUIRED });
      // Signed like support's messages: the operator's name, or `Support`.
      const name = typeof a.name === 'string' && a.name.trim() !== '' ? a.name.trim().slice(0, MAX_TYPING_NAME).replaceAll('\u0000', '') : DEFAULT_SUPPORT_NAME;
      let g = gates.get(a.merchant_id);
      if (!g) gates.set(a.merchant_id, (g = { gate: new TypingGate(), name }));
      if (g.gate.pass(typing, nowMs())) {
        g.name = name;
        relay({ kind: 'typing', merchant_id: a.merchant_id, side: 'support', name, typing, socket_id: socket.id });
      }
      reply({ ok: true });
    });
    socket.on('disconnect', () => {
      for (const [merchantId, g] of gates) {
        if (g.gate.typing) relay({ kind: 'typing', merchant_id: merchantId, side: 'support', name: g.name, typing: false, socket_id: socket.id });
      }
    });
  });
}
