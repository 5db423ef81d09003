#!/usr/bin/env node
/**
 * Nothing of an earlier README is lost when text moves between README.md and docs/: every heading, every code line
 * and every paragraph of the earlier file must still be somewhere in README.md, docs/*.md or src/* /README.md.
 * Paragraphs are compared as runs of 6 words, so a paragraph may be re-wrapped, split or linked differently; a code
 * line must be there as written. Prints what is missing (exit 1) or how much was checked (exit 0).
 *
 *   node scripts/docs/check-moved.mjs <old README file | git revision>   (a revision reads its README.md)
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const from = process.argv[2];
if (!from) {
  console.error("usage: node scripts/docs/check-moved.mjs <old README file | git revision>");
  process.exit(2);
}
const old = existsSync(from)
  ? readFileSync(from, "utf8")
  : execFileSync("git", ["show", `${from}:README.md`], { cwd: root, encoding: "utf8" });

const files = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  ...readdirSync(path.join(root, "src"))
    .map((room) => `src/${room}/README.md`)
    .filter((file) => existsSync(path.join(root, file))),
];
const now = files.map((file) => readFileSync(path.join(root, file), "utf8")).join("\n");

/** Headings, code lines and paragraphs of a Markdown text (fenced code kept apart from prose). */
function parts(text) {
  const headings = [];
  const code = [];
  const paragraphs = [];
  let fence = false;
  let paragraph = [];
  const flush = () => {
    if (paragraph.length > 0) paragraphs.push(paragraph.join(" "));
    paragraph = [];
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) {
      flush();
      fence = !fence;
      continue;
    }
    if (fence) {
      if (line.trim()) code.push(line.trim());
    } else if (/^#{1,6} /.test(line)) {
      flush();
      headings.push(line.replace(/^#+ /, "").trim());
    } else if (!line.trim()) flush();
    else paragraph.push(line.trim());
  }
  flush();
  return { headings, code, paragraphs };
}

const words = (text) =>
  text
    .replace(/\]\([^)]*\)/g, "]") // a link's target may change as text moves
    .replace(/[[\]*_]/g, "")
    .split(/\s+/)
    .filter(Boolean);
const nowWords = ` ${words(now).join(" ")} `;
const { headings: nowHeadings, code: nowCode } = parts(now);
const { headings, code, paragraphs } = parts(old);

const missing = [];
for (const heading of headings) if (!nowHeadings.includes(heading)) missing.push(`heading: ${heading}`);
const codeNow = new Set(nowCode);
for (const line of code) if (!codeNow.has(line)) missing.push(`code: ${line}`);
for (const paragraph of paragraphs) {
  const w = words(paragraph);
  const size = Math.min(6, w.length);
  const lost = [];
  for (let i = 0; i + size <= w.length; i++) {
    const run = w.slice(i, i + size).join(" ");
    if (!nowWords.includes(` ${run} `)) lost.push(run);
  }
  if (lost.length > 0)
    missing.push(
      `text: …${lost[0]}… (${lost.length} of ${w.length - size + 1} runs) in "${paragraph.slice(0, 80)}…"`,
    );
}
if (missing.length > 0) {
  console.log(missing.join("\n"));
  console.log(`\n${missing.length} part(s) of the earlier README are not in ${files.length} files now.`);
  process.exit(1);
}
console.log(
  `all ${headings.length} headings, ${code.length} code lines and ${paragraphs.length} paragraphs are in ${files.length} files`,
);
