import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StopSequenceFilter } from "./stop-sequence-filter.js";

describe("StopSequenceFilter", () => {
  it("cuts at the first stop however the text is chunked, holding back only possible stop prefixes", () => {
    const text = "answer <tool_resp <tool_response> after";
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 40 }), (sizes) => {
        const f = new StopSequenceFilter(["<tool_response>", "<|im_end|>"]);
        let out = "";
        let at = 0;
        for (const n of [...sizes, text.length]) {
          out += f.push(text.slice(at, at + n));
          at += n;
        }
        out += f.end();
        expect(out).toBe("answer <tool_resp ");
        expect(f.stopped).toBe(true);
      }),
    );
    const g = new StopSequenceFilter(["<|im_end|>"]);
    expect(g.push("ends with <|im")).toBe("ends with ");
    expect(g.end()).toBe("<|im");
  });
});
