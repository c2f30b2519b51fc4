// Sending one e-mail over SMTP with nodemailer (AUTH and STARTTLS handled there). smtps: speaks TLS
// from the first byte; smtp: upgrades with STARTTLS whenever the server offers it.
import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.ts';

export interface OutgoingMail { to: string; subject: string; text: string; messageId: string; date: Date }
export type SendMail = (m: OutgoingMail) => Promise<void>;

/** Timeouts short enough that an attempt ends well inside its lease (worker.ts). */
const CONNECT_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;
/** Longest an attempt can take: connect, greeting, and the socket idle once per command at most. */
export const ATTEMPT_BOUND_MS = CONNECT_TIMEOUT_MS * 2 + SOCKET_TIMEOUT_MS;

export function smtpSender(c: MailConfig, opts: { ca?: string | Buffer } = {}): SendMail {
  const transport = nodemailer.createTransport({
    host: c.host, port: c.port, secure: c.secure,
    ...(c.user !== null ? { auth: { user: c.user, pass: c.pass ?? '' } } : {}),
    connectionTimeout: CONNECT_TIMEOUT_MS, greetingTimeout: CONNECT_TIMEOUT_MS, socketTimeout: SOCKET_TIMEOUT_MS,
    // nodemailer's own logging stays off: it would print the AUTH exchange
    logger: false, debug: false,
    ...(opts.ca ? { tls: { ca: opts.ca } } : {}),
  });
  return async (m) => {
    // `to` as an address object: a string is parsed as an address list, and an account's address
    // (whose check lets a comma or a quote through) must reach that one mailbox and no other
    await transport.sendMail({ from: c.from, to: { name: '', address: m.to }, subject: m.subject, text: m.text, messageId: m.messageId, date: m.date });
  };
}

/** What is kept of a failed attempt: the server's answer or the network error, never the credentials. */
export function sendError(err: unknown): string {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
  if (e.response) return e.response;
  return [e.code, e.message].filter(Boolean).join(': ') || String(err);
}
