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
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
