// A chain's node URLs in order of preference (CONTRACT.md "Live chains": the watcher uses the first
// that answers and is not stale, and moves on when one fails or falls behind). Calls go to the
// current node; a transport failure moves on to the next, round robin, and the call is tried there,
// each node at most once per call. An answer that is an error of the node (RpcError) is returned
// as it is: another node would refuse the same request. `index` and `lastError` feed /admin/chains.
import { RpcError, TransportError, redactUrl } from './json-rpc.ts';

export class NoNodeAnswered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoNodeAnswered';
  }
}

export class NodeEndpoints {
  readonly urls: readonly string[];
  #index = 0;
  #lastError: string | null = null;
  #listeners: Array<(index: number, reason: string) => void> = [];

  constructor(urls: readonly string[]) {
    if (urls.length === 0) throw new Error('a chain needs at least one node URL');
    this.urls = urls;
  }

  /** Position of the node in use in the configured list (0 = first). */
  get index(): number {
    return this.#index;
  }

  get current(): string {
    return this.urls[this.#index];
  }

  /** The last failure seen (URL without credentials); null after a success on the first try. */
  get lastError(): string | null {
    return this.#lastError;
  }

  /** Called when the node in use changes (for logs and metrics). */
  onSwitch(fn: (index: number, reason: string) => void): void {
    this.#listeners.push(fn);
  }

  /** The node in use is unusable for a reason the caller found (stale tip, wrong chain id): move on. */
  skip(reason: string): void {
    this.#lastError = `${redactUrl(this.current)}: ${reason}`;
    if (this.urls.length === 1) return;
    this.#index = (this.#index + 1) % this.urls.length;
    for (const fn of this.#listeners) fn(this.#index, this.#lastError);
  }

  /**
   * Runs `fn` against the node in use, moving on to the next after a transport failure. Those
   * failures are added to `failures` as well: a broadcast reads them, since a node that failed to
   * answer may still have taken the transaction.
   */
  async use<T>(fn: (url: string) => Promise<T>, failures: string[] = []): Promise<T> {
    for (let tried = 0; tried < this.urls.length; tried++) {
      const url = this.current;
      try {
        const value = await fn(url);
        if (tried === 0) this.#lastError = null;
        return value;
      } catch (err) {
        if (err instanceof RpcError) throw err;
        const why = err instanceof TransportError ? err.message : `${redactUrl(url)}: ${(err as Error).message}`;
        failures.push(why);
        // another call running meanwhile may have moved on already: move on only from this node
        if (this.current === url) this.skip(why.slice(redactUrl(url).length + 2));
      }
    }
    throw new NoNodeAnswered(`no node answered: ${failures.join('; ')}`);
  }
}
