import { LiveSocket, socketUrl } from "../api/live-socket.js";

/** The page's one WebSocket (started once the session is known to be signed in). */
export const socket = new LiveSocket(socketUrl());
