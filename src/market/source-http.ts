// One GET of a price API: its JSON, or a SourceError saying in a few words what went wrong
// (unreachable, timed out, HTTP status, not JSON). The caller's signal carries the timeout.

/** Why a source gave no price; the message is logged and shown nowhere else. */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/** GETs a URL and returns its parsed JSON; throws SourceError. */
export type GetJson = (url: string) => Promise<unknown>;

/** An answer far larger than any ticker is refused rather than read whole. */
const MAX_BODY_BYTES = 1_000_000;

/**
 * The body as text, read no further than MAX_BODY_BYTES: an answer with no Content-Length
 * (chunked) that runs past it is cut off there, its connection closed, not read to its end.
 */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new SourceError('answer too large');
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, size)); // as Response.text(): UTF-8, a BOM dropped
}

function abortText(signal: AbortSignal): string {
  const reason = signal.reason as { name?: string } | undefined;
  return reason?.name === 'TimeoutError' ? 'timed out' : 'stopped';
}

export function httpGetJson(signal: AbortSignal): GetJson {
  return async (url) => {
    let text: string;
    try {
      const res = await fetch(url, { signal, headers: { accept: 'application/json' } });
      if (!res.ok) {
        await res.body?.cancel();
        throw new SourceError(`HTTP ${res.status}`);
      }
      if (Number(res.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) {
        await res.body?.cancel();
        throw new SourceError('answer too large');
      }
      text = await readCapped(res);
    } catch (err) {
      if (err instanceof SourceError) throw err;
      if (signal.aborted) throw new SourceError(abortText(signal));
      const code = (err as { cause?: { code?: string } }).cause?.code;
      throw new SourceError(`unreachable${code ? ` (${code})` : ''}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new SourceError('answer is not JSON');
    }
  };
}
