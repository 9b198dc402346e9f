/**
 * A real SMTP server (the `smtp-server` package) in the test process, receiving the mail an e-mail channel sends:
 * each message parsed with `mailparser` (subject, text), with the envelope and the user it logged in as. `users`
 * makes login required (PLAIN/LOGIN over the plain connection: the e-mail channel's `none` mode); STARTTLS is not
 * offered. `listen(port)` starts (or restarts) it on a given port, so a test can send before it listens.
 */
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

export function smtpReceiver(users: Record<string, string> = {}): SmtpReceiver {
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
          disabledCommands: needsLogin ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
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
