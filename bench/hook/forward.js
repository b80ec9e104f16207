// A minimal Node hook forwarder, as today's island apps ship: read the agent's JSON on stdin,
// wrap it in an envelope, write one line to the app's Unix socket, exit 0 (also with no app).
const net = require("net");
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  let payload = {};
  try { payload = JSON.parse(input || "{}"); } catch (_) {}
  const line = JSON.stringify({ kind: "event", v: 9, id: String(process.pid), agent: "claude",
    event: process.argv[2], wants_reply: false,
    terminal: { cwd: process.cwd(), pid: process.pid }, payload }) + "\n";
  const s = net.createConnection(process.env.VULTS_SOCKET, () => s.end(line));
  s.on("error", () => process.exit(0));
  s.on("close", () => process.exit(0));
});
