// Stamps every request the Node HTTP server receives with the client IP (CLIENT_IP_HEADER),
// computed from the socket's peer address and TRUSTED_PROXIES, before Next.js sees it. A value a
// client sent under that header name is always replaced, so nothing downstream can be fooled by
// a forged X-Forwarded-For. Installed once, from instrumentation.ts, in the server process.
import http from "node:http";
import { CLIENT_IP_HEADER, clientIpFrom, parseTrustedProxies } from "./shared/client-ip";
import { env } from "./shared/env";

const g = globalThis as unknown as { __rtsPeerStamp?: boolean };

export function installClientIpStamp() {
  if (g.__rtsPeerStamp) return;
  g.__rtsPeerStamp = true;
  const trusted = parseTrustedProxies(env.trustedProxies);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with .call(this)
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const req = args[0] as http.IncomingMessage;
      const xff = req.headers["x-forwarded-for"];
      const ip = clientIpFrom(req.socket?.remoteAddress, Array.isArray(xff) ? xff.join(",") : xff, trusted);
      if (ip) req.headers[CLIENT_IP_HEADER] = ip;
      else delete req.headers[CLIENT_IP_HEADER];
    }
    return (emit as (this: http.Server, e: string | symbol, ...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;
}
