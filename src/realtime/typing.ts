// Pure: support typing (CONTRACT.md "Support chat"). A client emits `support:typing` {typing}; the
// others of the merchant and the operator side receive {side, name, typing}. Typing is relayed,
// never stored. A socket's reports are gated: a change always passes, a repeated `true` at most
// once a second (a client repeating it on every key stroke costs one relay a second), a repeated
// `false` never. A socket that goes away while typing (a closed tab, an ended session) is passed on
// as `false`, or the others would be shown it typing until they reload.
export const TYPING_REPEAT_MS = 1000;
export const MAX_TYPING_NAME = 100;

export type SupportSide = 'merchant' | 'support';

/** A typing report on its way to every process (a fan-out relay). */
export interface TypingRelay {
  kind: 'typing';
  merchant_id: string;
  side: SupportSide;
  name: string;
  typing: boolean;
  /** Merchant side: the member typing, who does not hear themself. */
  user_id?: string;
  /** Operator side: the operator socket typing, which does not hear itself. */
  socket_id?: string;
}

export const isTypingRelay = (m: Record<string, unknown>): m is TypingRelay & Record<string, unknown> =>
  m.kind === 'typing' && typeof m.merchant_id === 'string' && (m.side === 'merchant' || m.side === 'support')
  && typeof m.name === 'string' && typeof m.typing === 'boolean';

/** `{typing}` from a client, or null when it is not a boolean. */
export function typingOf(arg: unknown): boolean | null {
  const t = (arg as { typing?: unknown } | null | undefined)?.typing;
  return typeof t === 'boolean' ? t : null;
}

/** Per socket: whether this report is passed on. */
export class TypingGate {
  #last: boolean | null = null;
  #at = -Infinity;

  pass(typing: boolean, nowMs: number): boolean {
    const passes = typing !== this.#last || (typing && nowMs - this.#at >= TYPING_REPEAT_MS);
    if (passes) {
      this.#last = typing;
      this.#at = nowMs;
    }
    return passes;
  }

  /** Whether the last report passed on said typing: a socket that goes away then is told as stopped. */
  get typing(): boolean {
    return this.#last === true;
  }
}

/** What the merchant's members receive. */
export const merchantTypingPayload = (r: TypingRelay) => ({ side: r.side, name: r.name, typing: r.typing });
/** What operators receive: the same, with the merchant it is about. */
export const operatorTypingPayload = (r: TypingRelay) => ({ merchant_id: r.merchant_id, side: r.side, name: r.name, typing: r.typing });
