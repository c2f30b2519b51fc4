import { describe, expect, it } from 'vitest';
import { isTypingRelay, TypingGate, typingOf, TYPING_REPEAT_MS } from './typing.ts';

describe('support typing', () => {
  it('passes every change, a repeated true at most once a second, a repeated false never', () => {
    const g = new TypingGate();
    expect(g.pass(true, 0)).toBe(true);
    expect(g.pass(true, 10)).toBe(false);
    expect(g.pass(true, TYPING_REPEAT_MS - 1)).toBe(false);
    expect(g.pass(true, TYPING_REPEAT_MS)).toBe(true);
    expect(g.pass(false, TYPING_REPEAT_MS + 1)).toBe(true);
    expect(g.pass(false, TYPING_REPEAT_MS * 5)).toBe(false);
    expect(g.pass(true, TYPING_REPEAT_MS * 5 + 1)).toBe(true);
  });

  it('says whether the last report passed on was typing (what a socket going away takes back)', () => {
    const g = new TypingGate();
    expect(g.typing).toBe(false);
    g.pass(true, 0);
    expect(g.typing).toBe(true);
    g.pass(true, 10); // held back: still typing
    expect(g.typing).toBe(true);
    g.pass(false, 20);
    expect(g.typing).toBe(false);
  });

  it('reads {typing} only when it is a boolean', () => {
    expect(typingOf({ typing: true })).toBe(true);
    expect(typingOf({ typing: false })).toBe(false);
    for (const bad of [undefined, null, 'x', {}, { typing: 'true' }, { typing: 1 }, [true]]) expect(typingOf(bad)).toBeNull();
  });

  it('recognises a typing relay and nothing else', () => {
    expect(isTypingRelay({ kind: 'typing', merchant_id: 'm', side: 'merchant', name: 'a@b.c', typing: true })).toBe(true);
    expect(isTypingRelay({ kind: 'typing', merchant_id: 'm', side: 'other', name: 'a', typing: true })).toBe(false);
    expect(isTypingRelay({ kind: 'other', merchant_id: 'm', side: 'support', name: 'a', typing: true })).toBe(false);
    expect(isTypingRelay({ kind: 'typing', merchant_id: 'm', side: 'support', name: 'a', typing: 'yes' })).toBe(false);
  });
});
