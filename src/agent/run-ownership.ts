import { randomUUID } from "node:crypto";
import os from "node:os";

/** Who drives a run: this process, as `host:pid`, recorded on the run while it is driven. */
export const RUN_OWNER = `${os.hostname()}:${process.pid}`;

/** A run driven in this process: how to stop it, and when its driver is done. */
export interface DrivenRun {
  readonly controller: AbortController;
  /** Settles once the driver stopped (whatever the outcome). */
  readonly ended: Promise<void>;
}

/**
 * Runs being driven in this process, whatever Agent instance drives them: what makes `resume` refuse a second driver
 * and lets `cancel` stop the one there is.
 */
export const activeRuns = new Map<string, DrivenRun>();

export function newRunId(): string {
  // randomUUID draws from a cached entropy pool; its first 8 characters are random hex.
  return `run_${Date.now().toString(36)}${randomUUID().slice(0, 8)}`;
}

/**
 * Whether the process recorded as a run's owner is gone, so another may take the run over: nobody, or a process of
 * this host that no longer exists (or this process, when it does not drive the run). A process of another host is
 * assumed alive: only a person can tell — unless the store owns runs by leases (`leaseUntil` present, PostgreSQL):
 * then the owner is gone once its lease expired. That is a first look by this host's clock; the claim that follows
 * checks the lease again in the database, by the clock every instance shares.
 */
export function ownerIsGone(owner: string | null, leaseUntil?: string | null): boolean {
  if (owner === null) return true;
  if (leaseUntil !== undefined) return leaseUntil === null || Date.parse(leaseUntil) <= Date.now();
  const at = owner.lastIndexOf(":");
  const host = owner.slice(0, at);
  const pid = Number(owner.slice(at + 1));
  if (host !== os.hostname() || !Number.isInteger(pid)) return false;
  if (pid === process.pid) return true; // not in activeRuns (checked by the caller), so nobody here drives it
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
