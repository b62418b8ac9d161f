// A real SMTP server for tests (smtp-server), every message parsed with mailparser; and a server
// that accepts connections and never answers, for the timeout paths.
import net from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface SmtpSink {
  url: string;
  messages: ParsedMail[];
  /** Resolves once `n` messages arrived (or rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth: (_auth, _session, cb) => cb(null, { user: "test" }),
    onData(stream, _session, cb) {
      simpleParser(stream)
        .then((m) => {
          messages.push(m);
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as net.AddressInfo).port;
  return {
    url: `smtp://test:secret@127.0.0.1:${port}`,
    messages,
    async waitFor(n, ms = 15_000) {
      const end = Date.now() + ms;
      while (messages.length < n) {
        if (Date.now() > end) throw new Error(`expected ${n} emails, got ${messages.length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An SMTP server that hangs: it accepts connections and never greets. */
export async function startHangingSmtp(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
