import { describe, expect, it } from "vitest";
import { clientIpFrom, normalizeIp, parseTrustedProxies } from "./client-ip";

describe("client IP from trusted proxies only", () => {
  it("trusts no proxy by default: X-Forwarded-For is ignored", () => {
    expect(clientIpFrom("10.0.0.5", "203.0.113.7", parseTrustedProxies(""))).toBe("10.0.0.5");
    expect(clientIpFrom("::ffff:127.0.0.1", "1.2.3.4, 5.6.7.8", [])).toBe("127.0.0.1");
  });

  it("walks X-Forwarded-For right to left past trusted proxies only", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8, 192.168.1.1");
    // client forged "1.1.1.1"; the real client 203.0.113.7 was appended by the trusted proxies
    expect(clientIpFrom("10.0.0.5", "1.1.1.1, 203.0.113.7, 192.168.1.1", trusted)).toBe("203.0.113.7");
    // an untrusted peer's header is not read at all
    expect(clientIpFrom("198.51.100.2", "1.1.1.1", trusted)).toBe("198.51.100.2");
    // a malformed hop stops the walk at the last verified address
    expect(clientIpFrom("10.0.0.5", "evil, not-an-ip", trusted)).toBe("10.0.0.5");
  });

  it("understands IPv6 CIDRs and ignores invalid entries", () => {
    const trusted = parseTrustedProxies("fd00::/8, nonsense, 10.0.0.0/99");
    expect(trusted).toHaveLength(1);
    expect(clientIpFrom("fd12::1", "2001:db8::9", trusted)).toBe("2001:db8::9");
    expect(normalizeIp("[::1]")).toBe("::1");
    expect(normalizeIp("x")).toBeNull();
  });
});
