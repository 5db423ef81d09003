/**
 * Versioned schema migrations. Each runs once, in its own transaction, and bumps `PRAGMA user_version`; a database
 * written by a newer toolbridge (higher version than we know) is refused rather than guessed at.
 */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description:
      "conversations, messages, runs, steps, tool calls, approvals, audit log, notes, memory index",
    sql: `
CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  title TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id TEXT NOT NULL REFERENCES conversations(id),
  run_id TEXT,
  step INTEGER,
  role TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
  content TEXT NOT NULL DEFAULT '',
  data TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL REFERENCES conversations(id),
  status TEXT NOT NULL CHECK (status IN ('running','paused','finished','stopped')),
  stop_reason TEXT,
  answer TEXT,
  error TEXT,
  model TEXT NOT NULL,
  options TEXT NOT NULL,
  limits TEXT NOT NULL,
  step_count INTEGER NOT NULL DEFAULT 0,
  tool_call_count INTEGER NOT NULL DEFAULT 0,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  repairs INTEGER NOT NULL DEFAULT 0,
  active_ms INTEGER NOT NULL DEFAULT 0,
  owner TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX runs_by_status ON runs(status, created_at);
CREATE TABLE steps (
  run_id TEXT NOT NULL REFERENCES runs(id),
  step INTEGER NOT NULL,
  finish_reason TEXT,
  text TEXT NOT NULL DEFAULT '',
  parse_errors TEXT NOT NULL DEFAULT '[]',
  finished INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (run_id, step)
);
CREATE TABLE tool_calls (
  run_id TEXT NOT NULL REFERENCES runs(id),
  id TEXT NOT NULL,
  step INTEGER NOT NULL,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  arguments TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('invalid','pending','approved','denied','refused','executing','done','interrupted')),
  outcome TEXT,
  result TEXT,
  started_at TEXT,
  finished_at TEXT,
  duration_ms INTEGER,
  PRIMARY KEY (run_id, id)
);
CREATE INDEX tool_calls_by_step ON tool_calls(run_id, step, position);
CREATE TABLE approvals (
  run_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  policy TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('pending','approved','denied')),
  decided_by TEXT,
  decided_at TEXT,
  reason TEXT,
  original_arguments TEXT,
  PRIMARY KEY (run_id, call_id),
  FOREIGN KEY (run_id, call_id) REFERENCES tool_calls(run_id, id)
);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  run_id TEXT,
  call_id TEXT,
  detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_by_run ON audit_log(run_id, id);
CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE memory_fts USING fts5(
  kind UNINDEXED, ref_id UNINDEXED, title, body, tokenize = 'porter unicode61'
);
`,
  },
  {
    version: 2,
    description: "MCP approvals: single-use requestState ledger and the shared signing key",
    sql: `
CREATE TABLE mcp_request_states (
  id TEXT PRIMARY KEY,
  used_at TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE mcp_settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
  },
  {
    version: 3,
    description:
      "run events: every AgentEvent of a run with its per-run sequence number (SSE / WebSocket replay)",
    sql: `
CREATE TABLE run_events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  at INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
`,
  },
  {
    version: 4,
    description: "tool settings of the server: enabled flag and approval policy per tool name",
    sql: `
CREATE TABLE tool_settings (
  name TEXT PRIMARY KEY,
  enabled INTEGER CHECK (enabled IN (0, 1)),
  policy TEXT CHECK (policy IN ('always', 'ask', 'never')),
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 5,
    description:
      "cancel requests: a run's stop asked for by a process that does not drive it (JSON: by, reason, at)",
    sql: `
ALTER TABLE runs ADD COLUMN cancel_request TEXT;
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;
