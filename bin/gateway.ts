#!/usr/bin/env node
// The gateway's developer CLI: `gateway listen`, `trigger`, `deliveries list|resend`.
// Settings come from options or the environment (GATEWAY_API_URL, GATEWAY_API_KEY, GATEWAY_EMAIL,
// GATEWAY_PASSWORD, GATEWAY_ACCESS_TOKEN). See README "Developer platform".
import crypto from 'node:crypto';
import { Argument, Command, Option } from 'commander';
import { createGateway } from '../sdk/src/index.ts';
import { SIMULATION_OUTCOMES } from '../src/payments/simulation-outcomes.ts';
import { LIST_DEFAULT } from '../src/platform/list-params.ts';
import { listen } from './lib/listen.ts';
import { CliError, Dashboard, cannotReach } from './lib/dashboard.ts';

const out = (line: string) => process.stdout.write(`${line}\n`);
const fail = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

const program = new Command('gateway').description('Develop against the crypto payment gateway');
program
  .option('--api-url <url>', 'the gateway', process.env.GATEWAY_API_URL ?? 'http://localhost:3000')
  .option('--api-key <key>', 'a test API key', process.env.GATEWAY_API_KEY);

const apiKey = (): string => program.opts().apiKey ?? fail('give --api-key or GATEWAY_API_KEY (a test key)');
const apiUrl = (): string => program.opts().apiUrl;

program.command('listen')
  .description('forward the test-mode events of the key\'s merchant to a local URL, signed as webhooks are')
  .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4000/hook')
  .action(async (o: { forwardTo: string }) => {
    const session = listen({
      apiUrl: apiUrl(), apiKey: apiKey(), forwardTo: o.forwardTo,
      onForwarded: (f) => out(`${new Date().toISOString()}  ${f.event.type.padEnd(24)} ${f.event.id}  → ${f.status ?? f.error} (${f.millis} ms)`),
      onProblem: (m) => process.stderr.write(`${m}\n`),
      onResumed: () => out(`${new Date().toISOString()}  connected again: forwarding`),
      onRefused: (m) => fail(m),
    });
    try {
      const { merchant_id } = await session.ready;
      out(`Ready: forwarding test-mode events of ${merchant_id} to ${o.forwardTo}`);
      out(`Signing secret: ${session.secret} (the same every time for this key)`);
    } catch (err) {
      fail((err as Error).message);
    }
    const stop = () => { session.close(); process.exit(0); };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });

program.command('trigger')
  .description('create a test payment and simulate an outcome on it')
  .addArgument(new Argument('<outcome>', 'what happens to the payment').choices([...SIMULATION_OUTCOMES]))
  .option('--amount <usd>', 'price in dollars', '10')
  .option('--token <coin>', 'the coin', 'ETH')
  .action(async (outcome: string, o: { amount: string; token: string }) => {
    const gateway = createGateway({ baseUrl: apiUrl(), apiKey: apiKey() });
    const orderId = `cli-${crypto.randomBytes(6).toString('hex')}`;
    const created = await gateway.payments.create({ order_id: orderId, amount_usd: o.amount, token: o.token, simulate: outcome as never }, { idempotencyKey: orderId });
    // status 0: no answer at all (the SDK's message is then the network's reason)
    if (!created.ok && created.error.status === 0) return fail(cannotReach(apiUrl(), created.error.message));
    if (!created.ok) return fail(`${created.error.status} ${created.error.message}`);
    out(`payment ${created.data.id} (order ${orderId}): ${created.data.status}, simulating ${outcome}`);
  });

const deliveries = program.command('deliveries').description('webhook deliveries (signs in to the dashboard)')
  .option('--access-token <token>', 'a dashboard access token', process.env.GATEWAY_ACCESS_TOKEN)
  .option('--email <email>', 'dashboard sign-in', process.env.GATEWAY_EMAIL)
  .option('--password <password>', 'dashboard sign-in', process.env.GATEWAY_PASSWORD)
  .addOption(new Option('--live', 'live deliveries instead of test ones'));
const dashboard = () => new Dashboard({ ...deliveries.opts(), apiUrl: apiUrl() });

deliveries.command('list').description('the latest deliveries, newest first')
  .option('--status <status>', 'pending, sending, delivered, failed or resolved')
  .option('--limit <n>', `1 to ${LIST_DEFAULT.max}`, '20')
  .action(async (o: { status?: string; limit: string }) => {
    const limit = /^\d+$/.test(o.limit) ? Number(o.limit) : NaN;
    if (!(limit >= 1 && limit <= LIST_DEFAULT.max)) return fail(`--limit must be a whole number from 1 to ${LIST_DEFAULT.max}`);
    const list = await dashboard().deliveries({ live: deliveries.opts().live === true, status: o.status, limit });
    if (list.length === 0) out('no deliveries');
    for (const d of list) {
      out([d.id, d.status, d.event_type, `attempts ${d.attempts}/${d.max_attempts}`, d.last_status_code ?? '-', d.created_at].join('  '));
    }
  });

deliveries.command('resend <id>').description('send a delivery again (attempts start over)')
  .action(async (id: string) => { out(await dashboard().redeliver(id)); });

program.parseAsync().catch((err: unknown) => fail(err instanceof CliError ? err.message : String((err as Error)?.stack ?? err)));
