// Whether a Redis server answers at the test URL, asked over a bare socket: the Redis tests skip
// only when none does. Asked through the limiter under test, a limiter that never connects would
// skip its own tests and leave the run green.
import net from 'node:net';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** True when something at `url` answers PING the way Redis does (+PONG, or an error such as NOAUTH). */
export function redisAnswers(url = TEST_REDIS_URL, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    const done = (answer: boolean) => { socket.destroy(); resolve(answer); };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => done(/^[+-]/.test(chunk.toString('latin1'))));
  });
}
