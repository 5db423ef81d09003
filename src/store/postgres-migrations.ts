import type { Queryable } from "./postgres-connection.js";
import { StoreOpenError } from "./store-open-error.js";

/**
 * The PostgreSQL schema as plain SQL, one entry per version. Every table lives in its own schema (default
 * `toolbridge`), so a database shared with an application keeps its own `runs` or `messages` untouched. `{S}` stands
 * for the quoted schema name.
 *
 * Version 1 is the SQLite store's four migrations in one, plus what several instances need: the run's lease (`owner`,
 * `lease_until`, `epoch`: the fencing token every state write checks) and `resumable` (set in the transaction of the
 * decision that left nothing pending). Memory
 * search uses generated `tsvector` columns with GIN indexes on the messages and notes themselves (no copy to keep in
 * step); the `english` configuration stems the way FTS5's porter tokenizer does.
 *
 * JSON columns are `json`, not `jsonb`: kept as written (key order of a model's arguments, `\u0000` in a tool's
 * output, which jsonb refuses).
 */
export interface PostgresMigration {
  version: number;
  description: string;
  sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description:
      "conversations, messages, runs with leases, steps, tool calls, approvals, audit log, notes, run events, MCP approval ledger, tool settings",
    sql: `
CREATE TABLE {S}.conversations (
  id text PRIMARY KEY,
  title text,
  created_at timestamptz NOT NULL
);
CREATE TABLE {S}.messages (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES {S}.conversations(id),
  run_id text,
  step integer,
  role text NOT NULL CHECK (role IN ('system','user','assistant','tool')),
  content text NOT NULL DEFAULT '',
  data json,
  created_at timestamptz NOT NULL,
  search tsvector GENERATED ALWAYS AS (
    CASE WHEN role IN ('user','assistant') AND content <> '' THEN to_tsvector('english', content) END
  ) STORED
);
CREATE INDEX messages_by_conversation ON {S}.messages (conversation_id, id);
CREATE INDEX messages_search ON {S}.messages USING gin (search);
CREATE TABLE {S}.runs (
  id text PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES {S}.conversations(id),
  status text NOT NULL CHECK (status IN ('running','paused','finished','stopped')),
  stop_reason text,
  answer text,
  error text,
  model text NOT NULL,
  options json NOT NULL,
  limits json NOT NULL,
  step_count integer NOT NULL DEFAULT 0,
  tool_call_count integer NOT NULL DEFAULT 0,
  consecutive_failures integer NOT NULL DEFAULT 0,
  repairs integer NOT NULL DEFAULT 0,
  active_ms bigint NOT NULL DEFAULT 0,
  owner text,
  lease_until timestamptz,
  epoch bigint NOT NULL DEFAULT 0,
  resumable boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX runs_by_status ON {S}.runs (status, created_at);
CREATE INDEX runs_by_created ON {S}.runs (created_at, id);
CREATE INDEX runs_by_conversation ON {S}.runs (conversation_id);
CREATE INDEX runs_leased ON {S}.runs (lease_until) WHERE status = 'running';
CREATE INDEX runs_resumable ON {S}.runs (updated_at) WHERE resumable;
CREATE TABLE {S}.steps (
  run_id text NOT NULL REFERENCES {S}.runs(id),
  step integer NOT NULL,
  finish_reason text,
  text text NOT NULL DEFAULT '',
  parse_errors json NOT NULL DEFAULT '[]',
  finished boolean NOT NULL DEFAULT false,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  PRIMARY KEY (run_id, step)
);
CREATE TABLE {S}.tool_calls (
  run_id text NOT NULL REFERENCES {S}.runs(id),
  id text NOT NULL,
  step integer NOT NULL,
  position integer NOT NULL,
  name text NOT NULL,
  arguments json NOT NULL,
  state text NOT NULL CHECK (state IN ('invalid','pending','approved','denied','refused','executing','done','interrupted')),
  outcome text,
  result json,
  started_at timestamptz,
  finished_at timestamptz,
  duration_ms integer,
  PRIMARY KEY (run_id, id)
);
CREATE INDEX tool_calls_by_step ON {S}.tool_calls (run_id, step, position);
CREATE INDEX tool_calls_pending ON {S}.tool_calls (run_id) WHERE state = 'pending';
CREATE TABLE {S}.approvals (
  run_id text NOT NULL,
  call_id text NOT NULL,
  policy text NOT NULL,
  decision text NOT NULL CHECK (decision IN ('pending','approved','denied')),
  decided_by text,
  decided_at timestamptz,
  reason text,
  original_arguments json,
  PRIMARY KEY (run_id, call_id),
  FOREIGN KEY (run_id, call_id) REFERENCES {S}.tool_calls(run_id, id)
);
CREATE TABLE {S}.audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  actor text NOT NULL,
  action text NOT NULL,
  run_id text,
  call_id text,
  detail json NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_by_run ON {S}.audit_log (run_id, id);
CREATE TABLE {S}.notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  title text NOT NULL,
  content text NOT NULL,
  tags json NOT NULL DEFAULT '[]',
  tag_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', content || ' ' || tag_text), 'B')
  ) STORED
);
CREATE INDEX notes_search ON {S}.notes USING gin (search);
CREATE TABLE {S}.run_events (
  run_id text NOT NULL,
  seq bigint NOT NULL,
  key uuid NOT NULL UNIQUE,
  type text NOT NULL,
  at bigint NOT NULL,
  data json NOT NULL,
  PRIMARY KEY (run_id, seq)
);
-- Appends a batch of run events in one statement (one round trip, its own transaction): per run, in run id order, a
-- transaction-scoped advisory lock (appends to one run take turns on every instance, usable through a
-- transaction-pooling proxy); the driver's events (epoch given) only while the run's epoch is still theirs — FOR SHARE
-- keeps a takeover waiting until this commits; numbered after the run's last event; then NOTIFY '{"run_id", "seq"}'
-- per run (sent at commit). Returns the 1-based position of each event written with its seq; a fenced event is not
-- returned. Idempotent by the events' keys: a batch sent again after its connection dropped (committed or not, the
-- sender cannot tell) is found and answered as it was written, never written twice.
CREATE FUNCTION {S}.append_run_events(
  channel text, keys uuid[], run_ids text[], epochs bigint[], types text[], ats bigint[], datas json[]
) RETURNS TABLE (idx bigint, seq bigint) LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(channel || s.id))
    FROM (SELECT DISTINCT u.id FROM unnest(run_ids) AS u(id) ORDER BY u.id) AS s;
  IF EXISTS (SELECT 1 FROM {S}.run_events e WHERE e.key = ANY(keys)) THEN
    RETURN QUERY
    SELECT k.ord, e.seq FROM unnest(keys) WITH ORDINALITY AS k(key, ord) JOIN {S}.run_events e ON e.key = k.key;
    RETURN;
  END IF;
  RETURN QUERY
  WITH input AS (
    SELECT i.ord AS idx, i.key, i.run_id, i.epoch, i.type, i.at, i.data
    FROM unnest(keys, run_ids, epochs, types, ats, datas) WITH ORDINALITY AS i(key, run_id, epoch, type, at, data, ord)
  ),
  fenced AS (
    SELECT r.id, r.epoch FROM {S}.runs r
    WHERE r.id IN (SELECT input.run_id FROM input WHERE input.epoch IS NOT NULL)
    ORDER BY r.id FOR SHARE
  ),
  numbered AS (
    SELECT a.idx, a.key, a.run_id, a.type, a.at, a.data,
      COALESCE((SELECT MAX(e.seq) FROM {S}.run_events e WHERE e.run_id = a.run_id), 0)
        + row_number() OVER (PARTITION BY a.run_id ORDER BY a.idx) AS seq
    FROM input a LEFT JOIN fenced f ON f.id = a.run_id
    WHERE a.epoch IS NULL OR a.epoch = f.epoch
  ),
  inserted AS (
    INSERT INTO {S}.run_events (run_id, seq, key, type, at, data)
    SELECT n.run_id, n.seq, n.key, n.type, n.at, n.data FROM numbered n
    RETURNING run_events.run_id, run_events.seq
  ),
  notified AS (
    SELECT pg_notify(channel, json_build_object('run_id', i.run_id, 'seq', MAX(i.seq))::text) AS sent
    FROM inserted i GROUP BY i.run_id
  )
  SELECT n.idx, n.seq FROM numbered n WHERE (SELECT count(*) FROM notified) >= 0;
END
$fn$;
CREATE TABLE {S}.mcp_request_states (
  id text PRIMARY KEY,
  used_at timestamptz NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX mcp_request_states_expiry ON {S}.mcp_request_states (expires_at);
CREATE TABLE {S}.mcp_settings (
  key text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE {S}.tool_settings (
  name text PRIMARY KEY,
  enabled boolean,
  policy text CHECK (policy IN ('always', 'ask', 'never')),
  updated_at timestamptz NOT NULL
);
`,
  },
  {
    version: 2,
    description:
      "cancel requests: a run's stop asked for on an instance that does not drive it (JSON: by, reason, at)",
    sql: `
ALTER TABLE {S}.runs ADD COLUMN cancel_request json;
`,
  },
  {
    version: 3,
    description:
      "event appends check the fencing epoch without the run's row lock: a takeover waits for the run's append lock instead",
    // Version 1's append took the run's row FOR SHARE to check the epoch, so it waited for every open state
    // transaction of the run (recordTurn, completeStep: they hold the row from their first statement to COMMIT), and
    // since appends are committed in batches, one run's transaction held back every run's events (bench/scale: the
    // append statement p50 23 ms, p99 82 ms at 2 × 25 runs). Only a change of epoch (a claim) has to be ordered with
    // appends: a trigger makes every such change take the run's append lock first, so a claim waits for an append in
    // flight, and an append that comes after it waits for it to commit, then reads the new epoch (each statement of
    // the function reads as of its start: after the lock) and is fenced. The lock has its own key space (two-key
    // form, first key the log's name), so it does not meet the single-key migration lock. Claims change one run's
    // epoch per transaction; a statement changing several would take their append locks in its own order, against
    // batches taking them in id order: a deadlock PostgreSQL ends, and the append batch (40P01) is retried.
    sql: `
CREATE FUNCTION {S}.runs_epoch_takes_append_lock() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('{S}.run_events'), hashtext(NEW.id));
  RETURN NEW;
END
$fn$;
CREATE TRIGGER runs_epoch_takes_append_lock BEFORE UPDATE OF epoch ON {S}.runs
  FOR EACH ROW WHEN (NEW.epoch IS DISTINCT FROM OLD.epoch)
  EXECUTE FUNCTION {S}.runs_epoch_takes_append_lock();
-- As version 1's, but the lock is the one the trigger above takes, and the epoch is read without a row lock.
CREATE OR REPLACE FUNCTION {S}.append_run_events(
  channel text, keys uuid[], run_ids text[], epochs bigint[], types text[], ats bigint[], datas json[]
) RETURNS TABLE (idx bigint, seq bigint) LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('{S}.run_events'), hashtext(s.id))
    FROM (SELECT DISTINCT u.id FROM unnest(run_ids) AS u(id) ORDER BY u.id) AS s;
  IF EXISTS (SELECT 1 FROM {S}.run_events e WHERE e.key = ANY(keys)) THEN
    RETURN QUERY
    SELECT k.ord, e.seq FROM unnest(keys) WITH ORDINALITY AS k(key, ord) JOIN {S}.run_events e ON e.key = k.key;
    RETURN;
  END IF;
  RETURN QUERY
  WITH input AS (
    SELECT i.ord AS idx, i.key, i.run_id, i.epoch, i.type, i.at, i.data
    FROM unnest(keys, run_ids, epochs, types, ats, datas) WITH ORDINALITY AS i(key, run_id, epoch, type, at, data, ord)
  ),
  fenced AS (
    SELECT r.id, r.epoch FROM {S}.runs r
    WHERE r.id IN (SELECT input.run_id FROM input WHERE input.epoch IS NOT NULL)
  ),
  numbered AS (
    SELECT a.idx, a.key, a.run_id, a.type, a.at, a.data,
      COALESCE((SELECT MAX(e.seq) FROM {S}.run_events e WHERE e.run_id = a.run_id), 0)
        + row_number() OVER (PARTITION BY a.run_id ORDER BY a.idx) AS seq
    FROM input a LEFT JOIN fenced f ON f.id = a.run_id
    WHERE a.epoch IS NULL OR a.epoch = f.epoch
  ),
  inserted AS (
    INSERT INTO {S}.run_events (run_id, seq, key, type, at, data)
    SELECT n.run_id, n.seq, n.key, n.type, n.at, n.data FROM numbered n
    RETURNING run_events.run_id, run_events.seq
  ),
  notified AS (
    SELECT pg_notify(channel, json_build_object('run_id', i.run_id, 'seq', MAX(i.seq))::text) AS sent
    FROM inserted i GROUP BY i.run_id
  )
  SELECT n.idx, n.seq FROM numbered n WHERE (SELECT count(*) FROM notified) >= 0;
END
$fn$;
`,
  },
];

export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.at(-1)?.version ?? 0;

/** A schema name as a quoted identifier; ours are plain (letters, digits, underscores). */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new StoreOpenError(
      `"${schema}" is not usable as a schema name: use lower-case letters, digits and underscores.`,
    );
  return `"${schema}"`;
}

/**
 * Bring the schema up to date in one transaction, under a transaction-scoped advisory lock: instances that start at
 * once take turns, and the second finds the work done. DDL is transactional in PostgreSQL, so a migration that fails
 * leaves nothing half-made. A schema written by a newer toolbridge is refused rather than guessed at. Returns the
 * version in force.
 */
export async function migratePostgres(client: Queryable, schema: string, location: string): Promise<number> {
  const S = quoteSchema(schema);
  await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`toolbridge-migrations:${schema}`]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${S}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${S}.schema_migrations (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`,
  );
  const { rows } = await client.query(
    `SELECT COALESCE(MAX(version), 0) AS version FROM ${S}.schema_migrations`,
  );
  const current = Number(rows[0]?.version ?? 0);
  if (current > POSTGRES_SCHEMA_VERSION) {
    throw new StoreOpenError(
      `The PostgreSQL database ${location} (schema ${schema}) has schema version ${current}, newer than this toolbridge understands (${POSTGRES_SCHEMA_VERSION}). Upgrade toolbridge.`,
    );
  }
  for (const migration of POSTGRES_MIGRATIONS) {
    if (migration.version <= current) continue;
    await client.query(migration.sql.replaceAll("{S}", S));
    await client.query(`INSERT INTO ${S}.schema_migrations (version, description) VALUES ($1, $2)`, [
      migration.version,
      migration.description,
    ]);
  }
  return Math.max(current, POSTGRES_SCHEMA_VERSION);
}
