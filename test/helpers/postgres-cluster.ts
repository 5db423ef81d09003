import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A throwaway PostgreSQL cluster for tests and benches: `initdb` into a temporary folder and `pg_ctl start` on a free
 * loopback port, durability off (fsync, synchronous_commit, full_page_writes: a crash of the test machine loses a
 * test database, nothing else). PostgreSQL refuses to run as root, so as root everything runs as the `postgres` user
 * through `runuser` (Debian's package creates it). About 0.4 s to start (scale.md §3).
 */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  url: string;
  port: number;
  dataDir: string;
  /** `pg_ctl restart -m fast`: every connection is dropped, the data stays. */
  restart(): void;
  /** `pg_ctl stop -m fast`, and `start` again on the same port. */
  stop(): void;
  start(): void;
  /** Stop and delete the folder. */
  destroy(): void;
}

/** The folder of PostgreSQL's server programs: `$PG_BIN`, Debian's newest /usr/lib/postgresql/N/bin, or the PATH. */
export function postgresBinDir(): string | undefined {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv && existsSync(path.join(fromEnv, "pg_ctl"))) return fromEnv;
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(path.join(debian, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  const found = which.status === 0 ? which.stdout.trim() : "";
  return found ? path.dirname(found) : undefined;
}

/** A port nobody listens on right now (the kernel's pick; PostgreSQL binds it a moment later). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function pgCommand(bin: string, program: string, args: string[]): void {
  const file = path.join(bin, program);
  const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  execFileSync(command, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
}

const PREFIX = "tb-pg-";
/** Written into each cluster's folder: the process that started it, so a later run can tell an orphan. */
const OWNER_FILE = "started-by.pid";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Stop and delete the clusters of test runs that were killed before their teardown (their starting process is gone),
 * so that they do not pile up. Clusters of runs still alive — other test runs on this machine — are left alone.
 */
export function removeOrphanedClusters(bin = postgresBinDir()): void {
  if (!bin) return;
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(path.join(dir, OWNER_FILE), "utf8"));
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    try {
      pgCommand(bin, "pg_ctl", ["-D", path.join(dir, "data"), "-m", "immediate", "-w", "stop"]);
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Start a cluster; throws (with PostgreSQL's own message) when it cannot. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL's server programs (initdb, pg_ctl) are not installed");
  removeOrphanedClusters(bin);
  const dir = mkdtempSync(path.join(tmpdir(), PREFIX));
  writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  const dataDir = path.join(dir, "data");
  if (asRoot) {
    const ids = execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim();
    const gid = execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim();
    chownSync(dir, Number(ids), Number(gid));
    chmodSync(dir, 0o700);
  }
  try {
    pgCommand(bin, "initdb", [
      "-D",
      dataDir,
      "-U",
      "postgres",
      "-A",
      "trust",
      "--no-sync",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${describe(error)}`);
  }
  let port = 0;
  const options = () =>
    [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=400",
      "-c shared_buffers=64MB",
    ].join(" ");
  const start = () =>
    pgCommand(bin, "pg_ctl", ["-D", dataDir, "-l", path.join(dir, "log"), "-w", "-o", options(), "start"]);
  let lastError: unknown;
  // The free port may be taken between the check and the start (other tests run beside these): try a few.
  for (let attempt = 0; attempt < 5; attempt++) {
    port = await freePort();
    try {
      start();
      lastError = undefined;
      break;
    } catch (error) {
      lastError = error;
    }
  }
  if (lastError) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`pg_ctl start failed: ${describe(lastError)}`);
  }
  const stop = (mode = "fast") => {
    try {
      pgCommand(bin, "pg_ctl", ["-D", dataDir, "-m", mode, "-w", "stop"]);
    } catch {
      // already stopped
    }
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    restart: () =>
      pgCommand(bin, "pg_ctl", [
        "-D",
        dataDir,
        "-l",
        path.join(dir, "log"),
        "-m",
        "fast",
        "-w",
        "-o",
        options(),
        "restart",
      ]),
    stop: () => stop(),
    start,
    destroy: () => {
      stop("immediate");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function describe(error: unknown): string {
  const e = error as { stderr?: Buffer | string; message?: string };
  const stderr = e.stderr ? String(e.stderr).trim() : "";
  return stderr || e.message || String(error);
}
