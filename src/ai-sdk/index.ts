export { fromToolResultOutput, toToolResultOutput } from "./tool-result-output.js";
export {
  type ToolbridgeToolMiddlewareOptions,
  toolbridgeToolMiddleware,
} from "./toolbridge-tool-middleware.js";
