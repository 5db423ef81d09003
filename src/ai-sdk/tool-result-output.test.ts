import { describe, expect, it } from "vitest";
import { fromToolResultOutput, toToolResultOutput } from "./tool-result-output.js";

describe("fromToolResultOutput", () => {
  it("reads every kind of AI SDK tool output as the MCP result a protocol renders", () => {
    expect(fromToolResultOutput({ type: "text", value: "4" }, "calc")).toEqual({
      content: [{ type: "text", text: "4" }],
    });
    expect(fromToolResultOutput({ type: "json", value: { a: [1] } }, "calc")).toEqual({
      content: [{ type: "text", text: '{"a":[1]}' }],
    });
    expect(fromToolResultOutput({ type: "error-text", value: "boom" }, "calc")).toEqual({
      content: [{ type: "text", text: "boom" }],
      isError: true,
    });
    expect(fromToolResultOutput({ type: "error-json", value: { code: 1 } }, "calc").isError).toBe(true);
    expect(fromToolResultOutput({ type: "execution-denied", reason: "not now." }, "write_file")).toEqual({
      content: [{ type: "text", text: "The call to write_file was denied: not now. It was not run." }],
      isError: true,
    });
    expect(fromToolResultOutput({ type: "execution-denied" }, "x").content).toEqual([
      { type: "text", text: "The call to x was denied. It was not run." },
    ]);
  });

  it("keeps text and images of content outputs, V3 and V4 shapes alike, and names what it cannot show", () => {
    const v3 = fromToolResultOutput(
      {
        type: "content",
        value: [
          { type: "text", text: "a chart:" },
          { type: "image-data", data: "AAAA", mediaType: "image/png" },
          { type: "file-url", url: "https://example.org/r.pdf" },
          { type: "file-data", data: "AAAA", mediaType: "application/pdf" },
        ],
      },
      "t",
    );
    expect(v3.content).toEqual([
      { type: "text", text: "a chart:" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "[file: https://example.org/r.pdf]" },
      { type: "text", text: "[file: application/pdf]" },
    ]);
    // V4 tags the file's data.
    const v4 = fromToolResultOutput(
      {
        type: "content",
        value: [
          { type: "file", mediaType: "image/jpeg", data: { type: "data", data: "BBBB" } },
          { type: "file", mediaType: "text/plain", data: { type: "text", text: "inline" } },
        ],
      } as never,
      "t",
    );
    expect(v4.content).toEqual([
      { type: "image", data: "BBBB", mimeType: "image/jpeg" },
      { type: "text", text: "inline" },
    ]);
  });
});

describe("toToolResultOutput", () => {
  it("gives text as text, an isError result as an error, images as image parts", () => {
    expect(toToolResultOutput({ content: [{ type: "text", text: "4" }] })).toEqual({
      type: "text",
      value: "4",
    });
    expect(toToolResultOutput({ content: [{ type: "text", text: "no" }], isError: true })).toEqual({
      type: "error-text",
      value: "no",
    });
    expect(
      toToolResultOutput({
        content: [
          { type: "text", text: "see" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
      }),
    ).toEqual({
      type: "content",
      value: [
        { type: "text", text: "see" },
        { type: "image-data", data: "AAAA", mediaType: "image/png" },
      ],
    });
  });

  it("reads a result of structured content alone as its JSON", () => {
    expect(toToolResultOutput({ content: [], structuredContent: { t: 19 } })).toEqual({
      type: "text",
      value: '{"t":19}',
    });
  });
});
