// The part of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface RequestParams { method?: string; path?: string; headers?: Record<string, string>; body?: string }
    interface Request extends RequestParams { setupRequest?: (req: RequestParams) => RequestParams; onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string>) => void }
    interface Options { url: string; connections?: number; duration?: number; requests?: Request[] }
    interface Result {
      requests: { average: number; total: number };
      latency: { p50: number; p99: number };
      errors: number;
      non2xx: number;
      /** Seconds the run lasted. */
      duration: number;
    }
    /** A run: a promise of its result that also emits each answer (`response`: client, status, bytes, latency in ms). */
    interface Running extends Promise<Result> {
      on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): Running;
    }
  }
  function autocannon(opts: autocannon.Options): autocannon.Running;
  export default autocannon;
}
