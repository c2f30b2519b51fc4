// The socket of `gateway listen` (namespace /listen): a test API key in the handshake
// (`auth.apiKey`), then every test-mode webhook event of the key's merchant, as the exact body a
// webhook would post. The CLI signs and forwards it to a local URL, which the spec forbids as a
// webhook URL. Live events never go out here. A storefront's key hears of its store's payments and
// their settlements only, as it reads only those (spec 5, API keys 4).
import type { Namespace } from 'socket.io';
import type { AccountsService } from '../accounts/index.ts';

type Authenticator = AccountsService['authn'];
import { AppError } from '../platform/errors.ts';
import { LIVE_MODE_OFF } from '../accounts/authenticate.ts';
import { API_KEY_UPDATE, MERCHANT_UPDATE } from '../accounts/socket-events.ts';
import type { StoredEvent } from '../events/index.ts';
import type { SocketExtension } from '../realtime/index.ts';
import { RecoveryHold } from '../realtime/recovery-hold.ts';
import { WEBHOOK_EVENT_TYPES, webhookBody } from '../webhooks/index.ts';

import { LISTEN_EVENT, LISTEN_NAMESPACE, LISTEN_READY, LISTEN_TEST_KEYS_ONLY, type ListenedEvent } from './protocol.ts';

export { LISTEN_EVENT, LISTEN_NAMESPACE, LISTEN_READY, LISTEN_TEST_KEYS_ONLY, type ListenedEvent };

/** Every listening socket of the merchant (ended together when the account is suspended). */
const roomOf = (merchantId: string) => `listen:${merchantId}`;
/** The sockets of account-wide keys: every event. */
const accountRoomOf = (merchantId: string) => `listen:${merchantId}:account`;
/** The sockets of one storefront's keys: that store's payments and settlements. */
const storeRoomOf = (merchantId: string, storeId: string) => `listen:${merchantId}:store:${storeId}`;
/** Events about one payment, which a storefront's key may see only for its own store's payments. */
const STORE_BOUND = ['payment.', 'settlement.'];

/** The rooms an event goes to: about a payment, the account's keys and its store's; anything else, every key. */
function roomsFor(e: StoredEvent, merchantId: string): string[] {
  if (!STORE_BOUND.some((prefix) => e.type.startsWith(prefix))) return [roomOf(merchantId)];
  const storeId = (e.data as { store_id?: unknown }).store_id;
  return typeof storeId === 'string' ? [accountRoomOf(merchantId), storeRoomOf(merchantId, storeId)] : [accountRoomOf(merchantId)];
}

/** Who a listening socket is: its key and the merchant and store it reads. */
interface Listener { merchantId: string; keyId: string; storeId: string | null }

function listenerOf(data: unknown): Listener | undefined {
  const d = data as Partial<Listener> | undefined;
  return typeof d?.keyId === 'string' && typeof d.merchantId === 'string' ? { merchantId: d.merchantId, keyId: d.keyId, storeId: d.storeId ?? null } : undefined;
}

function refusal(message: string): Error {
  return Object.assign(new Error(message), { data: { message } });
}

export function listenExtension(authn: Authenticator): SocketExtension {
  return {
    namespace: LISTEN_NAMESPACE,
    setUp(nsp: Namespace) {
      // A CLI coming back within the recovery window hears what it missed only once its key passed
      // again (a key revoked meanwhile hears nothing), and only with the same key: another key may
      // read less (a storefront's).
      const held = new RecoveryHold<Listener>(nsp, { principalOf: listenerOf, same: (then, now) => then.keyId === now.keyId && then.merchantId === now.merchantId });
      nsp.use((socket, next) => {
        const key = (socket.handshake.auth as { apiKey?: unknown } | undefined)?.apiKey;
        authn.apiKey(typeof key === 'string' ? key : undefined, { method: 'GET', readAllowed: true }).then((auth) => {
          if (auth.livemode) {
            held.drop(socket.id);
            return next(refusal(LISTEN_TEST_KEYS_ONLY));
          }
          socket.data.merchantId = auth.merchantId;
          socket.data.keyId = auth.keyId;
          socket.data.storeId = auth.storeId;
          next();
        }, (err: unknown) => {
          // A live key of an account whose live mode is off is still a live key: the answer is the
          // one every live key gets here (README "CLI"), not the advice to turn live mode on.
          held.drop(socket.id);
          const message = err instanceof AppError ? (err.message === LIVE_MODE_OFF ? LISTEN_TEST_KEYS_ONLY : err.message) : 'unauthorized';
          next(refusal(message));
        });
      });
      nsp.on('connection', (socket) => {
        const merchantId = socket.data.merchantId as string;
        const storeId = socket.data.storeId as string | null;
        // a recovered socket comes back in the rooms it had: those of the same key, kept
        for (const room of socket.rooms) if (room !== socket.id) socket.leave(room);
        void socket.join([roomOf(merchantId), storeId === null ? accountRoomOf(merchantId) : storeRoomOf(merchantId, storeId)]);
        held.replay(socket, { merchantId, keyId: socket.data.keyId as string, storeId });
        socket.emit(LISTEN_READY, { merchant_id: socket.data.merchantId });
      });
    },
    deliver(nsp: Namespace, batch: readonly StoredEvent[], recentDrop: boolean) {
      for (const e of batch) {
        // Revocation is immediate (spec 7) and a suspended account receives nothing: the socket is
        // ended, and the CLI's reconnection hears the refusal from the handshake.
        const d = e.data as { id?: unknown; revoked_at?: unknown; status?: unknown } | undefined;
        if (e.merchantId && e.type === API_KEY_UPDATE && d?.revoked_at) {
          for (const s of nsp.sockets.values()) if (s.data.keyId === d.id) s.disconnect(true);
          continue;
        }
        if (e.merchantId && e.type === MERCHANT_UPDATE && d?.status === 'suspended') {
          void nsp.in(roomOf(e.merchantId)).disconnectSockets(true);
          continue;
        }
        if (e.livemode || !e.merchantId || e.data === undefined || !WEBHOOK_EVENT_TYPES.has(e.type)) continue;
        // A socket away is in no room: after a drop everything is emitted for the recovery window,
        // so a CLI coming back within it is replayed what it missed (spec 8).
        const rooms = roomsFor(e, e.merchantId).filter((r) => recentDrop || nsp.adapter.rooms.has(r));
        if (rooms.length === 0) continue;
        const event: ListenedEvent = { id: e.id, type: e.type, body: webhookBody({ id: e.id, type: e.type, livemode: e.livemode, createdAt: e.createdAt, data: e.data }) };
        nsp.to(rooms).emit(LISTEN_EVENT, event);
      }
    },
  };
}
