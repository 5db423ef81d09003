/** Above this many cells the middle of a diff is shown as removed-then-added instead of computing an exact LCS. */
const MAX_LCS_CELLS = 4_000_000;

type Op = { kind: " " | "-" | "+"; line: string };

function splitForDiff(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Edit script between two line arrays: common prefix/suffix trimmed, LCS for the (usually small) middle. */
function diffLines(before: string[], after: string[]): Op[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start += 1;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore -= 1;
    endAfter -= 1;
  }
  const ops: Op[] = before.slice(0, start).map((line) => ({ kind: " ", line }));
  const a = before.slice(start, endBefore);
  const b = after.slice(start, endAfter);
  if (a.length * b.length > MAX_LCS_CELLS) {
    ops.push(...a.map((line): Op => ({ kind: "-", line })), ...b.map((line): Op => ({ kind: "+", line })));
  } else {
    // lengths[i][j] = LCS length of a[i..] and b[j..], stored row-major.
    const width = b.length + 1;
    const lengths = new Uint32Array((a.length + 1) * width);
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lengths[i * width + j] =
          a[i] === b[j]
            ? lengths[(i + 1) * width + j + 1]! + 1
            : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        ops.push({ kind: " ", line: a[i]! });
        i += 1;
        j += 1;
      } else if (
        i < a.length &&
        (j === b.length || lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)
      ) {
        // Removals first on a tie, so a changed line reads "-old" then "+new" as in git.
        ops.push({ kind: "-", line: a[i]! });
        i += 1;
      } else {
        ops.push({ kind: "+", line: b[j]! });
        j += 1;
      }
    }
  }
  ops.push(...before.slice(endBefore).map((line): Op => ({ kind: " ", line })));
  return ops;
}

/** A unified diff (`--- a/…`, `+++ b/…`, `@@` hunks with `context` lines around each change), or "" when equal. */
export function unifiedDiff(before: string, after: string, label: string, context = 3): string {
  if (before === after) return "";
  const ops = diffLines(splitForDiff(before), splitForDiff(after));
  const changed = ops.map((op, index) => (op.kind === " " ? -1 : index)).filter((index) => index >= 0);
  const out = [`--- a/${label}`, `+++ b/${label}`];
  let k = 0;
  while (k < changed.length) {
    const first = changed[k]!;
    let last = first;
    // Changes closer than two contexts apart share a hunk.
    while (k + 1 < changed.length && changed[k + 1]! - last <= context * 2 + 1) {
      k += 1;
      last = changed[k]!;
    }
    k += 1;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    let oldLine = 1;
    let newLine = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== "+") oldLine += 1;
      if (op.kind !== "-") newLine += 1;
    }
    const hunk = ops.slice(from, to);
    const oldCount = hunk.filter((op) => op.kind !== "+").length;
    const newCount = hunk.filter((op) => op.kind !== "-").length;
    out.push(
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
    );
    for (const op of hunk) out.push(op.kind + op.line);
  }
  return out.join("\n");
}
