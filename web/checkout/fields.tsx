// Small pieces of the page: a value with its copy button, the countdown, the page's text hook.
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { fill, type Formats, type MessageKey, type Messages } from './lib/i18n.ts';
import { serverNow } from './lib/server-clock.ts';

export interface Words {
  m: Messages;
  f: Formats;
}
export const WordsContext = createContext<Words>(null as unknown as Words);

/** `t('key', {vars})` in the page's language. */
export function useT(): { t: (key: MessageKey, vars?: Record<string, string | number>) => string; f: Formats } {
  const { m, f } = useContext(WordsContext);
  return { t: (key, vars) => fill(m[key], vars), f };
}

/** Announces short messages (a copy done) to screen readers without moving focus. */
export const AnnounceContext = createContext<(text: string) => void>(() => {});

const COPIED_MS = 2000;

interface CopyFieldProps {
  /** Element id of the value (tests and labels use it). */
  id: string;
  label: ComponentChildren;
  /** What is copied: the value alone, never its unit. */
  value: string;
  unit?: string;
  mono?: boolean;
  big?: boolean;
  copyLabel: MessageKey;
  copiedLabel: MessageKey;
}

export function CopyField({ id, label, value, unit, mono, big, copyLabel, copiedLabel }: CopyFieldProps) {
  const { t } = useT();
  const announce = useContext(AnnounceContext);
  const [copied, setCopied] = useState(false);
  const [failed, setFailed] = useState(false);
  const valueRef = useRef<HTMLOutputElement>(null);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  const selectValue = () => {
    const el = valueRef.current;
    if (!el) return;
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setFailed(false);
      setCopied(true);
      announce(t(copiedLabel));
    } catch {
      selectValue();
      setFailed(true);
    }
  };
  return (
    <div class={`field${big ? ' big' : ''}`}>
      <span class="label" id={`${id}-label`}>{label}</span>
      <div class="copyable">
        <output id={id} ref={valueRef} class={mono ? 'value mono' : 'value'} aria-labelledby={`${id}-label`}>
          {value}{unit && <span class="unit"> {unit}</span>}
        </output>
        <button type="button" class="copy" data-copy={id} aria-label={copied ? t(copiedLabel) : t(copyLabel)} onClick={copy}>
          {copied ? t('copied') : t('copy')}
        </button>
      </div>
      {failed && <p class="hint" role="alert">{t('copyFailed')}</p>}
    </div>
  );
}

const two = (n: number) => String(n).padStart(2, '0');

/** Seconds as m:ss, or h:mm:ss from an hour up. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

export function Countdown({ until }: { until: string }) {
  const { t } = useT();
  const end = Date.parse(until);
  const [now, setNow] = useState(serverNow);
  useEffect(() => {
    const timer = setInterval(() => setNow(serverNow()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (!Number.isFinite(end)) return null;
  const left = Math.max(0, (end - now) / 1000);
  return (
    <p class="countdown">
      <span class="label">{t('timeLeft')}</span>{' '}
      {/* Not live: a screen reader would read it every second. */}
      <strong id="countdown" role="timer" aria-live="off">{clock(left)}</strong>
    </p>
  );
}
