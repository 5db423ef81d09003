import { FilesystemError } from "./filesystem-errors.js";
import { quotePath } from "./filesystem-quote-path.js";
import type { OpenedFile } from "./filesystem-safe-io.js";
import { readBytes } from "./filesystem-safe-io.js";
import { BINARY_SNIFF_BYTES, decodeText, looksBinary, splitLines } from "./filesystem-text.js";
import { binaryFile, formatSize } from "./filesystem-tool-context.js";

/** Which lines read_file returns: the first N, the last N, or a 1-based inclusive range (or all when none is set). */
export interface LineSelection {
  head?: number;
  tail?: number;
  startLine?: number;
  endLine?: number;
}

/** Refuse contradictory selections before the path is looked at; true when some selection was asked for. */
export function checkLineSelection(selection: LineSelection): boolean {
  const modes = [
    selection.head !== undefined,
    selection.tail !== undefined,
    selection.startLine !== undefined || selection.endLine !== undefined,
  ].filter(Boolean).length;
  if (modes > 1) {
    throw new FilesystemError(
      "invalid-argument",
      "Use only one of head, tail, or startLine/endLine per call.",
    );
  }
  if (
    selection.startLine !== undefined &&
    selection.endLine !== undefined &&
    selection.endLine < selection.startLine
  ) {
    throw new FilesystemError("invalid-argument", "endLine must be greater than or equal to startLine.");
  }
  return modes === 1;
}

function pastTheEnd(requested: string, lines: number, from: number): FilesystemError {
  return new FilesystemError(
    "invalid-argument",
    `${quotePath(requested)} has ${lines} lines; startLine ${from} is past the end.`,
  );
}

/** Apply a selection to text read whole. */
export function selectLines(text: string, selection: LineSelection, requested: string): string {
  const { head, tail, startLine, endLine } = selection;
  if (head === undefined && tail === undefined && startLine === undefined && endLine === undefined)
    return text;
  const lines = splitLines(text);
  if (head !== undefined) return lines.slice(0, head).join("\n");
  if (tail !== undefined) return lines.slice(Math.max(0, lines.length - tail)).join("\n");
  const from = startLine ?? 1;
  if (from > lines.length) throw pastTheEnd(requested, lines.length, from);
  return lines.slice(from - 1, endLine ?? lines.length).join("\n");
}

/** Line selection on an open file too large to read whole: scan forward (head/range) or read the end (tail). */
export async function readLargeSelection(
  { handle, stats }: OpenedFile,
  requested: string,
  selection: LineSelection,
  maxBytes: number,
  signal: AbortSignal,
): Promise<string> {
  if (looksBinary(await readBytes(handle, BINARY_SNIFF_BYTES))) throw binaryFile(requested, stats.size);
  const tooMuch = () =>
    new FilesystemError(
      "too-large",
      `The selected lines of ${quotePath(requested)} exceed the ${formatSize(maxBytes)} limit; ask for fewer lines.`,
    );
  if (selection.tail !== undefined) {
    const start = Math.max(0, stats.size - maxBytes);
    const text = decodeText(await readBytes(handle, maxBytes, start), true) ?? "";
    // The first line is probably cut by the window; drop it unless the window starts at the file's start.
    const lines = splitLines(text).slice(start > 0 ? 1 : 0);
    if (lines.length < selection.tail && start > 0) throw tooMuch();
    return lines.slice(lines.length - selection.tail).join("\n");
  }
  const from = selection.head !== undefined ? 1 : (selection.startLine ?? 1);
  const to = selection.head ?? selection.endLine ?? Number.POSITIVE_INFINITY;
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const chunk = Buffer.alloc(64 * 1024);
  const selected: string[] = [];
  let selectedBytes = 0;
  let carry = "";
  let lineNumber = 0;
  let position = 0;
  const take = (line: string): boolean => {
    lineNumber += 1;
    if (lineNumber >= from && lineNumber <= to) {
      const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
      selectedBytes += Buffer.byteLength(clean) + 1;
      if (selectedBytes > maxBytes) throw tooMuch();
      selected.push(clean);
    }
    return lineNumber < to;
  };
  reading: while (true) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    carry += decoder.decode(chunk.subarray(0, bytesRead), { stream: true });
    let newline = carry.indexOf("\n");
    while (newline !== -1) {
      if (!take(carry.slice(0, newline))) break reading;
      carry = carry.slice(newline + 1);
      newline = carry.indexOf("\n");
    }
  }
  carry += decoder.decode();
  if (carry.length > 0 && lineNumber < to) take(carry);
  if (from > lineNumber) throw pastTheEnd(requested, lineNumber, from);
  return selected.join("\n");
}
