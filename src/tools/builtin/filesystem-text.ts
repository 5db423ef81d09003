/** How much of a file is sniffed for NUL bytes before deciding it is binary (git and grep use the same idea). */
export const BINARY_SNIFF_BYTES = 8000;

/** A NUL byte near the start is the classic sign of a binary file; UTF-8 and UTF-16-free text never has one. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

// ignoreBOM keeps a leading BOM in the text, so an edit writes it back instead of silently dropping it.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The bytes as text, or undefined when they are not text a model can use: a NUL byte early on, or invalid UTF-8
 * (`partialTail` tolerates a multi-byte character cut off by a read limit).
 */
export function decodeText(bytes: Uint8Array, partialTail = false): string | undefined {
  if (looksBinary(bytes)) return undefined;
  let end = bytes.length;
  if (partialTail) {
    // Back up over at most 3 continuation bytes and the lead byte of a character that the cut split.
    let back = 0;
    while (back < 3 && end - back - 1 >= 0 && ((bytes[end - back - 1] ?? 0) & 0xc0) === 0x80) back += 1;
    const lead = bytes[end - back - 1] ?? 0;
    const expected = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (expected > back + 1) end -= back + 1;
  }
  try {
    return strictUtf8.decode(bytes.subarray(0, end));
  } catch {
    return undefined;
  }
}

/** Split text into lines the way an editor numbers them ("a\nb\n" is two lines, CRLF counts as one break). */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
