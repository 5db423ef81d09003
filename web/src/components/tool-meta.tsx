import type { ToolAnnotations, ToolInfo, ToolSource } from "../api/types.js";

export function sourceLabel(source: ToolSource | undefined): string {
  if (!source) return "unknown source";
  if (source.type === "builtin") return "built-in";
  if (source.type === "config") return "tools module";
  return `MCP: ${source.server}`;
}

/** Badges for a tool's MCP annotations: what it may do. */
export function AnnotationBadges({ annotations }: { annotations: ToolAnnotations | undefined }) {
  if (!annotations) return null;
  const badges: Array<[string, string, string]> = [];
  if (annotations.destructiveHint)
    badges.push(["destructive", "badge-danger", "may delete or overwrite data"]);
  if (annotations.readOnlyHint) badges.push(["read-only", "badge-ok", "changes nothing"]);
  if (annotations.openWorldHint) badges.push(["open-world", "badge-warn", "reaches outside systems"]);
  if (annotations.idempotentHint)
    badges.push(["idempotent", "badge-neutral", "repeating it changes nothing more"]);
  if (badges.length === 0) return null;
  return (
    <span className="badges">
      {badges.map(([text, tone, title]) => (
        <span key={text} className={`badge ${tone}`} title={title}>
          {text}
        </span>
      ))}
    </span>
  );
}

/** Why a call of this tool asks for a person's decision: the policy and where it was set. */
export function whyItAsks(tool: ToolInfo | undefined): string {
  if (!tool) return "This run asks for a decision on this call.";
  if (tool.policy !== "ask")
    return `The tool's policy on this server is "${tool.policy}", but this run asks for a decision (its own approval settings, such as toolbridge run --require-approval).`;
  switch (tool.policySource) {
    case "setting":
      return 'Policy "ask", set on this server\'s Tools page (a tool setting).';
    case "config":
      return 'Policy "ask", from the config file (mcp.approvals).';
    default: {
      const a = tool.annotations;
      if (a?.destructiveHint) return 'Asks by default: the tool is marked destructive (policy "ask").';
      if (a?.openWorldHint)
        return 'Asks by default: the tool reaches outside systems (open-world, policy "ask").';
      return 'Asks by default: the tool is defined as needing approval (policy "ask").';
    }
  }
}
