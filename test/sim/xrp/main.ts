// The simulated rippled as a process of its own (`node test/sim/xrp/main.ts <port>`), so that it
// outlives a service killed with SIGKILL: driven over its own JSON-RPC (`ledger_accept` closes a
// ledger, `submit` takes a blob signed by the test). Prints `listening <url>` when ready.
import { startXrpSim } from './server.ts';

const sim = await startXrpSim({ port: Number(process.argv[2] ?? 0) });
process.stdout.write(`listening ${sim.httpUrl}\n`);
process.on('SIGTERM', () => { void sim.stop().then(() => process.exit(0)); });
