import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import type pg from "pg";
import { inject } from "vitest";

/**
 * The shared test PostgreSQL (started by test/global-setup.ts) and a fresh database on it per test or file. Tests
 * that need it are skipped only when no server could be started (`.ci/run` installs PostgreSQL, so CI always has
 * one): `describe.skipIf(!postgresUrl)`.
 */
export const postgresUrl: string | null = inject("postgresUrl");
export const postgresMissing: string = inject("postgresMissing");

const { Client } = createRequire(import.meta.url)("pg") as typeof pg;

/** `url` with another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Run one statement on the server's maintenance database. */
export async function adminQuery(sql: string, url = postgresUrl): Promise<void> {
  if (!url) throw new Error(`no test PostgreSQL: ${postgresMissing}`);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test server; resolves to its URL. Drop it with `dropDatabase`. */
export async function createDatabase(url = postgresUrl): Promise<string> {
  if (!url) throw new Error(`no test PostgreSQL: ${postgresMissing}`);
  const name = `tb_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`, url);
  return withDatabase(url, name);
}

/** Drop a database made by createDatabase, closing whatever is still connected to it. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!/^tb_[0-9a-f]+$/.test(name)) throw new Error(`not a test database: ${name}`);
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, withDatabase(databaseUrl, "postgres"));
}
