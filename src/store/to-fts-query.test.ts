import { describe, expect, it } from "vitest";
import { openSqliteDatabase } from "./open-sqlite-database.js";
import { toFtsQuery } from "./to-fts-query.js";

describe("toFtsQuery", () => {
  it("turns any text into quoted words joined by OR, operators and punctuation included", () => {
    expect(toFtsQuery('NEAR("x" AND y*')).toBe('"near" OR "x" OR "and" OR "y"');
    expect(toFtsQuery("Grüße, 東京 and snake_case2")).toBe('"grüße" OR "東京" OR "and" OR "snake_case2"');
  });

  it("has no query for text without a word, and keeps 32 distinct words at most", () => {
    expect(toFtsQuery("  ...  ")).toBeUndefined();
    expect(toFtsQuery("")).toBeUndefined();
    expect(toFtsQuery("a A a b")).toBe('"a" OR "b"');
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    expect(toFtsQuery(many)?.split(" OR ")).toHaveLength(32);
  });

  it("is never an FTS5 syntax error, whatever the text", () => {
    const { db, statement } = openSqliteDatabase(":memory:");
    const match = statement("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?").pluck();
    for (const text of ['"', "(", "AND", "OR NOT", "*", "a:b", "^x", 'NEAR("x" AND y*', "x -y", "{a b}: c"]) {
      const query = toFtsQuery(text);
      if (query !== undefined) expect(() => match.get(query), text).not.toThrow();
    }
    db.close();
  });
});
