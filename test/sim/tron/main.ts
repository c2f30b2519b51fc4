// The simulated java-tron as a process of its own (`node test/sim/tron/main.ts <port>`), so that it
// outlives a service killed with SIGKILL: the service speaks java-tron's HTTP API to it, the test
// drives it over `POST /sim/*` (fund, deploy, mint, mine, txs: server.ts). Prints `listening <url>`.
import { startTronSim } from './server.ts';

const sim = await startTronSim(undefined, { port: Number(process.argv[2] ?? 0), control: true });
process.stdout.write(`listening ${sim.url}\n`);
process.on('SIGTERM', () => { void sim.stop().then(() => process.exit(0)); });
