/**
 * A real SMTP server (the `smtp-server` package) in the test process, receiving the mail an e-mail channel sends:
 * each message parsed with `mailparser` (subject, text), with the envelope and the user it logged in as. `users`
 * makes login required (PLAIN/LOGIN over the plain connection: the e-mail channel's `none` mode). Without `tls`
 * STARTTLS is not offered; with it (a key and certificate, `localCertificate`) it is, or with `secure` the connection is
 * TLS from the first byte (the `tls` mode); `secure` on each mail says whether it came over TLS. `listen(port)` starts
 * (or restarts) it on a given port, so a test can send before it listens.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  subject: string;
  text: string;
  from: string;
  to: string[];
  /** Who logged in, or null when no login happened. */
  user: string | null;
  /** Whether the session was encrypted (implicit TLS or after STARTTLS). */
  secure: boolean;
}

export interface SmtpTls {
  key: string;
  cert: string;
  /** TLS from the first byte instead of STARTTLS. */
  secure?: boolean;
}

/** A fresh self-signed certificate for 127.0.0.1 (openssl), to be trusted as its own CA. */
export function localCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-smtp-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  /** Logins refused (wrong user or password). */
  refusedLogins: number;
  /** Resolves once `count` mails have arrived. */
  waitFor(count: number): Promise<void>;
  listen(port?: number): Promise<void>;
  stop(): Promise<void>;
}

export function smtpReceiver(users: Record<string, string> = {}, tls?: SmtpTls): SmtpReceiver {
  const events = new EventEmitter();
  const needsLogin = Object.keys(users).length > 0;
  let server: SMTPServer | undefined;
  const receiver: SmtpReceiver = {
    port: 0,
    mails: [],
    refusedLogins: 0,
    waitFor: async (count) => {
      while (receiver.mails.length < count) await once(events, 'mail');
    },
    listen: (port = receiver.port) =>
      new Promise<void>((resolve, reject) => {
        server = new SMTPServer({
          ...(tls ? { key: tls.key, cert: tls.cert, secure: tls.secure ?? false } : {}),
          disabledCommands: [...(tls ? [] : ['STARTTLS']), ...(needsLogin ? [] : ['AUTH'])],
          authOptional: !needsLogin,
          allowInsecureAuth: true,
          logger: false,
          onAuth(auth, _session, callback) {
            if (auth.username !== undefined && users[auth.username] === auth.password) {
              return callback(null, { user: auth.username });
            }
            receiver.refusedLogins++;
            return callback(new Error('Invalid username or password'));
          },
          onData(stream, session, callback) {
            simpleParser(stream)
              .then((parsed) => {
                receiver.mails.push({
                  subject: parsed.subject ?? '',
                  text: parsed.text ?? '',
                  from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                  to: session.envelope.rcptTo.map((r) => r.address),
                  user: typeof session.user === 'string' ? session.user : null,
                  secure: session.secure,
                });
                events.emit('mail');
                callback();
              })
              .catch((e: Error) => callback(e));
          },
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          receiver.port = (server!.server.address() as AddressInfo).port;
          resolve();
        });
      }),
    stop: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
  return receiver;
}
