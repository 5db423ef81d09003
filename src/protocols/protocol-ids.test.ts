import { describe, expect, it } from "vitest";
import { KNOWN_PROTOCOL_IDS, PLANNED_PROTOCOL_IDS } from "./protocol-ids.js";
import { getProtocol } from "./protocol-registry.js";

/** The format ids issue 3 lists, in its order, exactly as written there. */
const ISSUE_3_IDS = [
  "tag_tool",
  "json_tool_calls",
  "jsonl_events",
  "hermes",
  "qwen3_coder_xml",
  "llama3_json",
  "llama3_builtin",
  "pythonic",
  "gemma3_tool_code",
  "gemma3_json",
  "mistral_v3",
  "mistral_v11",
  "functionary_v3_1",
  "functionary_v3_2",
  "firefunction_v2",
  "phi4_mini",
  "command_r7b",
  "deepseek_r1",
  "deepseek_v3_1",
  "granite",
  "gpt_oss_harmony",
  "kimi_k2",
  "glm45",
  "minimax_m2",
  "node_llama_cpp_functionary",
  "llamacpp_generic",
];

/** Formats added for issue 17 (class 8). */
const ISSUE_17_IDS = [
  "functiongemma",
  "gemma4",
  "lfm2",
  "deepseek_v3_2",
  "seed_oss",
  "ernie45",
  "hunyuan_a13b",
  "apertus",
  "xlam",
  "nemotron_nano_v2",
];

describe("issue 3 and issue 17 format ids", () => {
  it("are exactly the known ids, and none is still planned", () => {
    expect([...KNOWN_PROTOCOL_IDS].sort()).toEqual([...ISSUE_3_IDS, ...ISSUE_17_IDS].sort());
    expect(PLANNED_PROTOCOL_IDS).toEqual([]);
  });

  it.each([...ISSUE_3_IDS, ...ISSUE_17_IDS])(
    "getProtocol(%j) gives a working protocol with that id",
    (id) => {
      const p = getProtocol(id);
      expect(p.id).toBe(id);
      const call = { id: "call_1", name: "get_weather", arguments: { city: "Paris" } };
      const parser = p.createParser();
      const events = [...parser.push(p.renderAssistantTurn({ calls: [call] })), ...parser.end()];
      const ended = events.flatMap((e) => (e.type === "call-end" ? [e.call] : []));
      expect(ended).toMatchObject([{ name: "get_weather", arguments: { city: "Paris" } }]);
    },
  );
});
