import { describe, expect, it } from "vitest";
import { approvalQuestion, parseApprovalAnswer } from "./approval-answer.js";

describe("parseApprovalAnswer", () => {
  it("reads the four answers, short or long, in any case", () => {
    for (const text of ["y", "Y", "yes", " YES "]) expect(parseApprovalAnswer(text)).toEqual({ kind: "yes" });
    for (const text of ["e", "edit"]) expect(parseApprovalAnswer(text)).toEqual({ kind: "edit" });
    for (const text of ["a", "Always"]) expect(parseApprovalAnswer(text)).toEqual({ kind: "always" });
    expect(parseApprovalAnswer("n")).toEqual({ kind: "no" });
    expect(parseApprovalAnswer("no  not that file ")).toEqual({ kind: "no", reason: "not that file" });
  });

  it("never guesses an approval from anything else", () => {
    for (const text of ["", "ok", "sure", "yes please", "yep", "a lot", "1"]) {
      expect(parseApprovalAnswer(text)).toEqual({ kind: "unclear" });
    }
  });
});

describe("approvalQuestion", () => {
  it("shows the call and the choices, and shortens huge arguments", () => {
    expect(approvalQuestion("calculator", { expression: "2+2" })).toBe(
      'Allow calculator({"expression":"2+2"})? [y]es / [n]o / [e]dit args / [a]lways for this chat ',
    );
    expect(approvalQuestion("write", { text: "x".repeat(1000) }).length).toBeLessThan(400);
  });
});
