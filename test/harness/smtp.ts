// A small SMTP server over node:net for the e-mail tests: EHLO/HELO, AUTH PLAIN (inline or after
// 334), MAIL FROM, RCPT TO, DATA (dot-unstuffed), RSET, NOOP, QUIT. It records each accepted
// message; `refuse` makes it answer MAIL FROM with a given reply (e.g. '554 5.7.1 no'), and
// close()/listen() take it down and up again on the same port.
import net from 'node:net';

export interface ReceivedMail { user: string | null; pass: string | null; from: string; to: string[]; data: string }

export class SmtpTestServer {
  readonly messages: ReceivedMail[] = [];
  /** A reply to MAIL FROM instead of 250 (the server refuses every message while set). */
  refuse: string | null = null;
  port = 0;
  #server: net.Server | null = null;
  readonly #sockets = new Set<net.Socket>();

  async listen(): Promise<this> {
    const server = net.createServer((s) => this.#session(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
    return this;
  }

  /** Stops listening and drops every connection (the port then refuses connections). */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    const server = this.#server;
    this.#server = null;
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  url(user = 'gw', pass = 'smtp-secret'): string {
    return `smtp://${user}:${pass}@127.0.0.1:${this.port}`;
  }

  #session(s: net.Socket): void {
    this.#sockets.add(s);
    s.on('close', () => this.#sockets.delete(s));
    s.on('error', () => {});
    const say = (line: string) => { if (!s.destroyed) s.write(`${line}\r\n`); };
    let buf = '';
    let user: string | null = null;
    let pass: string | null = null;
    let from = '';
    let to: string[] = [];
    let mode: 'command' | 'auth' | 'data' = 'command';
    let data: string[] = [];
    const plain = (b64: string) => {
      const [, u, p] = Buffer.from(b64, 'base64').toString('utf8').split('\0');
      user = u ?? null;
      pass = p ?? null;
      say('235 2.7.0 authenticated');
    };
    const onLine = (line: string) => {
      if (mode === 'data') {
        if (line === '.') {
          mode = 'command';
          this.messages.push({ user, pass, from, to, data: data.join('\r\n') });
          say('250 2.0.0 queued');
          return;
        }
        data.push(line.startsWith('..') ? line.slice(1) : line);
        return;
      }
      if (mode === 'auth') { mode = 'command'; plain(line); return; }
      const [verb, ...rest] = line.split(' ');
      const arg = rest.join(' ');
      switch (verb.toUpperCase()) {
        case 'EHLO': say('250-test.smtp greets you'); say('250-AUTH PLAIN'); say('250 8BITMIME'); return;
        case 'HELO': say('250 test.smtp'); return;
        case 'AUTH':
          if (!/^PLAIN/i.test(arg)) { say('504 5.5.4 only PLAIN'); return; }
          if (rest[1]) plain(rest[1]); else { mode = 'auth'; say('334 '); }
          return;
        case 'MAIL':
          if (this.refuse) { say(this.refuse); return; }
          from = /<([^>]*)>/.exec(arg)?.[1] ?? ''; to = []; say('250 2.1.0 ok'); return;
        case 'RCPT': to.push(/<([^>]*)>/.exec(arg)?.[1] ?? ''); say('250 2.1.5 ok'); return;
        case 'DATA': mode = 'data'; data = []; say('354 end with <CRLF>.<CRLF>'); return;
        case 'RSET': from = ''; to = []; say('250 2.0.0 ok'); return;
        case 'NOOP': say('250 2.0.0 ok'); return;
        case 'QUIT': say('221 2.0.0 bye'); s.end(); return;
        default: say('502 5.5.2 not implemented');
      }
    };
    s.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        onLine(line);
      }
    });
    say('220 test.smtp ESMTP ready');
  }
}
