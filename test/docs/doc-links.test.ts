/**
 * Every relative link of the documentation resolves: README.md, docs/*.md and the rooms' src/* /README.md link to
 * files that exist and to headings that exist in them (GitHub's anchors: lower case, punctuation dropped, spaces as
 * hyphens). A section moved to another file, or a renamed heading, fails here instead of leaving a dead link.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

function markdownFiles(): string[] {
  const files = ["README.md", ...readdirSync(path.join(root, "docs")).map((name) => `docs/${name}`)];
  for (const room of readdirSync(path.join(root, "src"))) files.push(`src/${room}/README.md`);
  files.push("scripts/train/README.md");
  return files.filter((file) => file.endsWith(".md") && existsSync(path.join(root, file)));
}

/** GitHub's anchor for a heading: lower case, markup and punctuation dropped (hyphens and underscores kept). */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings (outside code fences), with GitHub's -1, -2 for repeats. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    const heading = !fence && /^#{1,6} (.*)$/.exec(line)?.[1];
    if (!heading) continue;
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative link targets in a Markdown file's prose (code fences and inline code left out). */
function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("documentation links", () => {
  const files = markdownFiles();

  it("finds the README, the docs and the rooms' notes", () => {
    expect(files).toContain("README.md");
    expect(files).toContain("docs/server.md");
    expect(files).toContain("src/protocols/README.md");
  });

  it("computes GitHub's anchors", () => {
    expect(anchorOf("OpenAI-compatible /v1")).toBe("openai-compatible-v1");
    expect(anchorOf("Execution guarantee: at most once")).toBe("execution-guarantee-at-most-once");
    expect(anchorOf("MCP, both ways")).toBe("mcp-both-ways");
    expect(anchorOf("`GET /api`")).toBe("get-api");
  });

  it("the README's links lead to files the npm package ships (its `files`), so they work in an install too", () => {
    const shipped = (
      JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).files as string[]
    ).filter((entry) => !entry.startsWith("!"));
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const outside = linksOf(readme)
      .map((link) => link.split("#")[0] ?? "")
      .filter(
        (target) => target && !shipped.some((entry) => target === entry || target.startsWith(`${entry}/`)),
      );
    // src/*/README.md are notes for contributors, read in the repository.
    expect(outside.filter((target) => !/^src\/[\w-]+\/README\.md$/.test(target))).toEqual([]);
  });

  for (const file of files) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const text = readFileSync(path.join(root, file), "utf8");
      const dead: string[] = [];
      for (const link of linksOf(text)) {
        const [target = "", anchor] = link.split("#");
        const resolved = target
          ? path.resolve(path.dirname(path.join(root, file)), target)
          : path.join(root, file);
        if (!existsSync(resolved)) {
          dead.push(`${link} (no such file)`);
          continue;
        }
        if (anchor && statSync(resolved).isFile() && resolved.endsWith(".md")) {
          if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) dead.push(`${link} (no such heading)`);
        }
      }
      expect(dead).toEqual([]);
    });
  }
});
