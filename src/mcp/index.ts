export { createMcpServer, type McpServerOptions } from "./create-mcp-server.js";
export {
  McpApprovalConfigError,
  type McpApprovalOptions,
  type McpApprovalSettings,
  type McpApprovalStore,
  McpApprovals,
  MemoryRequestStateLedger,
  mcpApprovalsFromConfig,
  type RequestStateLedger,
} from "./mcp-approvals.js";
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpHandlerOptions } from "./mcp-http-handler.js";
export { currentMcpRequest, type McpEra, type McpRequestContext } from "./mcp-request-context.js";
export type {
  McpEraVerdictStore,
  McpMountLogger,
  McpServerState,
  McpServerStatus,
  RestartPolicy,
} from "./mcp-server-connection.js";
export { fileEraVerdictStore, forgetMcpEraVerdicts } from "./mcp-server-connection.js";
export {
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpServersConfig,
  type McpStdioServerConfig,
  mcpServerConfigSchema,
  mcpServersSchema,
} from "./mcp-servers-config.js";
export {
  McpServersConfigError,
  type MountedMcpServers,
  type MountMcpServersOptions,
  mountMcpServers,
  parseMcpServersConfig,
} from "./mount-mcp-servers.js";
export { namespaceToolName } from "./namespace-tool-name.js";
export { type StdioMcpServer, type StdioMcpServerOptions, serveMcpOverStdio } from "./serve-mcp-stdio.js";
