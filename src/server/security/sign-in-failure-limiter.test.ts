import { describe, expect, it } from "vitest";
import { SignInFailureLimiter, signInClientKey } from "./sign-in-failure-limiter.js";

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("SignInFailureLimiter", () => {
  it("refuses a client after maxFailures in the window, tells how long, and lets it try again after", () => {
    const time = clock();
    const limiter = new SignInFailureLimiter({ maxFailures: 3, windowMs: 60_000, now: time.now });
    for (let i = 0; i < 2; i++) limiter.recordFailure("a");
    expect(limiter.retryAfterSeconds("a")).toBe(0);
    limiter.recordFailure("a");
    expect(limiter.retryAfterSeconds("a")).toBe(60);
    expect(limiter.retryAfterSeconds("b")).toBe(0);
    time.advance(59_500);
    expect(limiter.retryAfterSeconds("a")).toBe(1);
    time.advance(500);
    expect(limiter.retryAfterSeconds("a")).toBe(0);
    // A new window: the count starts again.
    limiter.recordFailure("a");
    expect(limiter.retryAfterSeconds("a")).toBe(0);
  });

  it("keeps at most maxClients entries, dropping finished windows first, then the oldest", () => {
    const time = clock();
    const limiter = new SignInFailureLimiter({
      maxFailures: 1,
      windowMs: 1000,
      maxClients: 100,
      now: time.now,
    });
    for (let i = 0; i < 10_000; i++) limiter.recordFailure(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBe(100);
    // The newest are still refused.
    expect(limiter.retryAfterSeconds("10.0.39.15")).toBe(1);
    time.advance(1000);
    limiter.recordFailure("fresh");
    expect(limiter.size).toBe(1);
  });

  it("rejects settings that would disable it by accident", () => {
    expect(() => new SignInFailureLimiter({ maxFailures: 0 })).toThrow(RangeError);
    expect(() => new SignInFailureLimiter({ windowMs: Number.NaN })).toThrow(RangeError);
  });
});

describe("signInClientKey", () => {
  it("reads IPv4-mapped addresses as IPv4 and counts an IPv6 host by its /64", () => {
    expect(signInClientKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(signInClientKey("192.0.2.7")).toBe("192.0.2.7");
    expect(signInClientKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(signInClientKey("2001:db8:1:2:ffff:ffff:ffff:fffe")).toBe("2001:db8:1:2::/64");
    expect(signInClientKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(signInClientKey("::1")).toBe("0:0:0:0::/64");
    expect(signInClientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(signInClientKey(undefined)).toBe("unknown");
  });
});
