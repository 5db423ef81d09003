import { isIPv6 } from "node:net";

export interface SignInFailureLimiterOptions {
  /** Failed token checks a client may make in one window before it is refused. Default 10. */
  maxFailures?: number;
  /** The window, from a client's first failure. Default 60 s. */
  windowMs?: number;
  /** Clients remembered at most; past this the expired, then the oldest entries are dropped. Default 10 000. */
  maxClients?: number;
  /** Milliseconds since the epoch; injectable so tests move time instead of sleeping. */
  now?: () => number;
}

interface Entry {
  failures: number;
  since: number;
}

/**
 * Who a failure is counted against: the remote address, with IPv4-mapped IPv6 read as IPv4 and IPv6 cut to its /64
 * (one host usually holds a whole /64, so counting single addresses would give it 2^64 fresh starts).
 */
export function signInClientKey(address: string | undefined): string {
  if (!address) return "unknown";
  const plain = address.replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(plain)) return plain;
  const [head = "", tail] = plain.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/**
 * Limits guessing of the server's token: after `maxFailures` failed checks from one client within `windowMs`, that
 * client is refused (429 with Retry-After) until the window ends — before its token is even compared, so the refusal
 * leaks nothing. Successes are never counted or limited. The table is bounded (`maxClients`), so a flood of addresses
 * costs memory only up to that; entries of finished windows are dropped first.
 */
export class SignInFailureLimiter {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: SignInFailureLimiterOptions = {}) {
    this.maxFailures = options.maxFailures ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.#maxClients = options.maxClients ?? 10_000;
    this.#now = options.now ?? Date.now;
    for (const [name, value] of [
      ["maxFailures", this.maxFailures],
      ["windowMs", this.windowMs],
      ["maxClients", this.#maxClients],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`${name} must be a positive whole number, got ${value}.`);
      }
    }
  }

  /** Seconds until this client may try again, or 0 when it may now. */
  retryAfterSeconds(client: string): number {
    const entry = this.#current(client);
    if (!entry || entry.failures < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((entry.since + this.windowMs - this.#now()) / 1000));
  }

  /** Count one failed token check (a wrong token, a forged or expired session cookie) against this client. */
  recordFailure(client: string): void {
    const entry = this.#current(client);
    if (entry) {
      entry.failures += 1;
      return;
    }
    if (this.#entries.size >= this.#maxClients) this.#makeRoom();
    this.#entries.set(client, { failures: 1, since: this.#now() });
  }

  /** How many clients are remembered (for tests of the bound). */
  get size(): number {
    return this.#entries.size;
  }

  #current(client: string): Entry | undefined {
    const entry = this.#entries.get(client);
    if (entry && this.#now() - entry.since >= this.windowMs) {
      this.#entries.delete(client);
      return undefined;
    }
    return entry;
  }

  /** Drop finished windows; if the table is still full, the oldest entry (Map order is insertion order). */
  #makeRoom(): void {
    const now = this.#now();
    for (const [client, entry] of this.#entries) {
      if (now - entry.since >= this.windowMs) this.#entries.delete(client);
    }
    while (this.#entries.size >= this.#maxClients) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}
