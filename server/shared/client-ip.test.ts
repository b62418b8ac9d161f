import { describe, expect, it } from "vitest";
import { clientIpFrom, clientNetwork, normalizeIp, parseTrustedProxies } from "./client-ip";

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

  it("walks IPv6 hops past IPv6 proxies, and answers canonical text", () => {
    const trusted = parseTrustedProxies("2001:db8:1::/48");
    expect(clientIpFrom("2001:db8:1::10", "2001:DB8:ffff:0:0:0:0:7, 2001:db8:1::20", trusted)).toBe("2001:db8:ffff::7");
    // the proxy range stops at its prefix: a peer just outside it is the client itself
    expect(clientIpFrom("2001:db8:2::10", "2001:db8:ffff::7", trusted)).toBe("2001:db8:2::10");
    expect(normalizeIp("2001:DB8:0:0:0:0:0:1")).toBe("2001:db8::1");
  });

  it("treats IPv4-mapped IPv6 peers and hops as the IPv4 address they carry", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8");
    // a dual-stack socket reports an IPv4 proxy as ::ffff:10.1.2.3: still the trusted proxy
    expect(clientIpFrom("::ffff:10.1.2.3", "203.0.113.9", trusted)).toBe("203.0.113.9");
    expect(clientIpFrom("10.1.2.3", "::ffff:203.0.113.9", trusted)).toBe("203.0.113.9");
    expect(normalizeIp("::FFFF:192.0.2.1")).toBe("192.0.2.1");
    // an IPv6 proxy list does not trust IPv4 peers, nor the reverse
    expect(clientIpFrom("10.1.2.3", "203.0.113.9", parseTrustedProxies("::/0"))).toBe("10.1.2.3");
    expect(clientIpFrom("fd00::1", "203.0.113.9", parseTrustedProxies("0.0.0.0/0"))).toBe("fd00::1");
  });

  it("matches TRUSTED_PROXIES ranges at their prefix length", () => {
    const trusted = parseTrustedProxies("172.16.0.0/12, 192.168.1.0/30, 203.0.113.50");
    expect(trusted).toHaveLength(3);
    expect(clientIpFrom("172.31.255.254", "198.51.100.1", trusted)).toBe("198.51.100.1");
    expect(clientIpFrom("172.32.0.1", "198.51.100.1", trusted)).toBe("172.32.0.1");
    expect(clientIpFrom("192.168.1.3", "198.51.100.1", trusted)).toBe("198.51.100.1");
    expect(clientIpFrom("192.168.1.4", "198.51.100.1", trusted)).toBe("192.168.1.4");
    // a single address is a /32; several trusted hops in a row are all skipped
    expect(clientIpFrom("203.0.113.50", "198.51.100.1, 192.168.1.1, 172.16.0.9", trusted)).toBe("198.51.100.1");
    // short and odd forms are not addresses
    expect(parseTrustedProxies("127.1, 10.0.0.0/8x, 10.0.0.0/-1")).toHaveLength(0);
  });

  it("ignores a forged X-Forwarded-For from an untrusted peer, and forged hops before the first untrusted one", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8");
    expect(clientIpFrom("198.51.100.77", "10.0.0.1, 127.0.0.1", trusted)).toBe("198.51.100.77");
    expect(clientIpFrom("198.51.100.77", "::1", trusted)).toBe("198.51.100.77");
    // the client claims to be 10.9.9.9 (a proxy) to get past it: the walk stops at the first
    // address that is not a proxy, which is the real client the trusted proxy appended
    expect(clientIpFrom("10.0.0.5", "10.9.9.9, 1.1.1.1, 198.51.100.77", trusted)).toBe("198.51.100.77");
  });
});

describe("the client network of per-client limits", () => {
  it("is the IPv4 address, or the IPv6 /64 (any address of a subscriber's prefix counts as one)", () => {
    expect(clientNetwork("203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetwork("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientNetwork("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientNetwork("not an ip")).toBeNull();
  });
});
