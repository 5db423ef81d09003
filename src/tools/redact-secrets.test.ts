import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED } from "./redact-secrets.js";
import { StreamRedactor } from "./stream-redactor.js";

const none = { env: {} };

describe("createRedactor", () => {
  it("redacts the JSON-escaped form of a secret with a quote or backslash", () => {
    const secret = 'pa"ss\\word-1234';
    const redact = createRedactor({ ...none, values: [secret] });
    const json = JSON.stringify({ note: `the value is ${secret}` });
    expect(json).not.toContain(secret); // what made the old redactor miss it
    expect(redact(json)).toBe(JSON.stringify({ note: `the value is ${REDACTED}` }));
    expect(redact(`raw ${secret}`)).toBe(`raw ${REDACTED}`);
  });

  it("treats regex metacharacters in a secret literally and replaces overlapping secrets whole", () => {
    const redact = createRedactor({ ...none, values: ["a.*b(c)$", "xyz-secret", "xyz-secret-longer"] });
    expect(redact("aXXb a.*b(c)$ ok")).toBe(`aXXb ${REDACTED} ok`);
    expect(redact("[xyz-secret-longer]")).toBe(`[${REDACTED}]`);
  });

  it("recognises credentials in URLs and connection strings", () => {
    const redact = createRedactor(none);
    const cases: Array<[string, string]> = [
      ["postgres://app:s3cr3t@db.internal:5432/prod", "s3cr3t"],
      ["https://user:ghtoken123@git.example.com/repo.git", "ghtoken123"],
      ["mongodb+srv://admin:p%40ss@cluster0.mongodb.net/db?retryWrites=true", "p%40ss"],
      ["https://abcdefghijklmnop1234@github.com/org/repo", "abcdefghijklmnop1234"],
      ["Server=db;Database=x;User Id=sa;Password=Tr0ub4dor;Encrypt=true", "Tr0ub4dor"],
      ["Driver={ODBC};Uid=sa;Pwd={p;w d};", "p;w d"],
      ["jdbc:mysql://db/x?user=u&password=hunter2&ssl=true", "hunter2"],
    ];
    for (const [text, secret] of cases) {
      const out = redact(text);
      expect(out, text).not.toContain(secret);
      expect(out, text).toContain(REDACTED);
    }
    // Hosts, paths and user names without a password stay readable.
    expect(redact("see https://example.com/a/b and ssh://git@github.com/x")).toBe(
      "see https://example.com/a/b and ssh://git@github.com/x",
    );
    expect(redact("postgres://app:s3cr3t@db.internal:5432/prod")).toBe(
      `postgres://${REDACTED}@db.internal:5432/prod`,
    );
  });
});

describe("StreamRedactor", () => {
  it("never lets a secret split across deltas through, and loses no text", () => {
    const secret = "tok-Zq8v!really-long-secret-value";
    const redact = createRedactor({ ...none, values: [secret] });
    const text = `start ${"x".repeat(300)} then ${secret} and ${"y".repeat(200)} end ${secret}`;
    for (const size of [1, 3, 7, 16, 50]) {
      const stream = new StreamRedactor(redact);
      let shown = "";
      for (let i = 0; i < text.length; i += size) shown += stream.push(text.slice(i, i + size));
      shown += stream.flush();
      expect(shown).toBe(redact(text));
      expect(shown).not.toContain(secret.slice(0, 6));
    }
  });

  it("never ends a piece inside a surrogate pair", () => {
    const redact = createRedactor({ ...none, values: ["not-in-this-text"] });
    const text = "😀".repeat(400);
    for (const size of [1, 3, 5]) {
      const stream = new StreamRedactor(redact);
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i += size) pieces.push(stream.push(text.slice(i, i + size)));
      pieces.push(stream.flush());
      expect(pieces.join("")).toBe(text);
      for (const piece of pieces) expect(piece.length % 2, piece).toBe(0);
    }
  });

  it("holds a private key block until it is complete, then redacts it whole", () => {
    const redact = createRedactor(none);
    const key = `-----BEGIN RSA PRIVATE KEY-----\n${"A".repeat(1500)}\n-----END RSA PRIVATE KEY-----`;
    const stream = new StreamRedactor(redact);
    let shown = "";
    for (const piece of `here: ${key} done`.match(/[\s\S]{1,10}/g) ?? []) shown += stream.push(piece);
    shown += stream.flush();
    expect(shown).toBe(`here: ${REDACTED} done`);
  });

  it("keeps the keyword before a cut so look-behind patterns still match", () => {
    const redact = createRedactor(none);
    const stream = new StreamRedactor(redact);
    let shown = stream.push(`${"z".repeat(200)} password=`);
    shown += stream.push("x".repeat(130));
    shown += stream.push("hunter2hunter2 rest");
    shown += stream.flush();
    expect(shown).not.toContain("hunter2");
  });
});
