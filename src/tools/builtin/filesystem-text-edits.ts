import { FilesystemError } from "./filesystem-errors.js";
import { quotePath } from "./filesystem-quote-path.js";

export interface Edit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  let at = text.indexOf(needle);
  while (at !== -1) {
    count += 1;
    at = text.indexOf(needle, at + needle.length);
  }
  return count;
}

/** Apply exact-text edits in order; each oldText must occur exactly once unless replaceAll is set. */
export function applyEdits(
  original: string,
  edits: readonly Edit[],
  requested: string,
): { text: string; replacements: number } {
  let text = original;
  let replacements = 0;
  const crlf = original.includes("\r\n");
  edits.forEach((edit, index) => {
    const label = edits.length > 1 ? `edits[${index}].oldText` : "oldText";
    if (edit.oldText.length === 0) {
      throw new FilesystemError("invalid-argument", `${label} is empty; give the exact text to replace.`);
    }
    let { oldText, newText } = edit;
    let count = countOccurrences(text, oldText);
    if (count === 0 && crlf && oldText.includes("\n") && !oldText.includes("\r\n")) {
      // Models write "\n"; the file uses CRLF. Match and replace in the file's own convention.
      oldText = oldText.replace(/\n/g, "\r\n");
      newText = newText.replace(/\r?\n/g, "\r\n");
      count = countOccurrences(text, oldText);
    }
    if (count === 0) {
      throw new FilesystemError(
        "edit-mismatch",
        `${label} was not found in ${quotePath(requested)}. Read the file again and copy the text exactly (whitespace and indentation matter); nothing was changed.`,
      );
    }
    if (count > 1 && !edit.replaceAll) {
      throw new FilesystemError(
        "edit-mismatch",
        `${label} occurs ${count} times in ${quotePath(requested)}. Include more surrounding lines so it is unique, or set replaceAll: true; nothing was changed.`,
      );
    }
    text = text.split(oldText).join(newText);
    replacements += count;
  });
  return { text, replacements };
}
