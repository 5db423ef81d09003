export {
  createServerApp,
  DEFAULT_MAX_BODY_BYTES,
  type ServerApp,
  type ServerAppOptions,
} from "./create-server-app.js";
export {
  type RunningServer,
  ServerConfigError,
  type StartServerOptions,
  startServer,
} from "./start-server.js";
