/**
 * Node 24.19 made node::ObjectWrap's destructor remove an environment cleanup hook, which aborts the process
 * ("Assertion failed: (env) != nullptr") when such an object is garbage-collected outside a JavaScript context — by an
 * idle-time collection, or while the process exits. better-sqlite3 before 13 derives its Database and Statement from
 * ObjectWrap; 13 fixes that but needs Node 22+, and Node 20 is still supported here. So no better-sqlite3 object this
 * process makes is left for the collector: each is kept reachable until the process ends. A store prepares a bounded
 * set of statements (cached by their SQL), so this costs little.
 */
const retained = new Set<object>();

export function keepNativeAlive<T extends object>(value: T): T {
  retained.add(value);
  return value;
}

/**
 * The connection, kept, with `prepare` keeping every statement it makes (also those callers outside the store prepare
 * on `store.db`). Transactions' own statements live as long as the connection. `pragma()` prepares behind `prepare`
 * and leaves its statement to the collector: use `exec` or a prepared `PRAGMA` instead.
 */
export function keepDatabaseAlive<T extends { prepare(source: string): object }>(db: T): T {
  keepNativeAlive(db);
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => keepNativeAlive(prepare(source))) as T["prepare"];
  return db;
}
