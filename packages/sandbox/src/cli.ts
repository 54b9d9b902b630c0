/**
 * `npx plans-sandbox` (`npm run sandbox` at the top of the repository): runs the REST sandbox
 * alone, prints where it listens, its tokens, plans and OAuth client, and stops cleanly on
 * SIGINT / SIGTERM. Bad options exit with status 2.
 */
import { CLI_USAGE, parseCliOptions, sandboxOptionsOf } from './cli-options.js';
import type { OAuthClientOptions, OAuthConsentOptions } from './core/api.js';
import { createSandbox, DEMO_OAUTH_CLIENT } from './sandbox.js';

/** Where OAuth lives, and the applications it knows (a secret only for the demo one). */
function oauthLines(
  origin: string,
  clients: readonly OAuthClientOptions[],
  consent: OAuthConsentOptions['mode'],
): string[] {
  const how =
    consent === 'page' ? 'sign-in and consent pages' : `every authorization answered: ${consent}`;
  return [
    `  OAuth authorize   ${origin}/oauth/authorize (${how})`,
    `  OAuth token       ${origin}/oauth/token`,
    ...clients.flatMap((client) => [
      `  OAuth app         ${client.name ?? client.clientId}: client_id=${client.clientId}${
        client.clientId === DEMO_OAUTH_CLIENT.clientId
          ? `  client_secret=${client.clientSecret}`
          : ''
      }`,
      `                    redirect URIs ${client.redirectUris.join(' ')} (on loopback, any port)`,
    ]),
  ];
}

async function main(): Promise<void> {
  const parsed = parseCliOptions(process.argv.slice(2), process.env);
  if (parsed.kind === 'help') {
    process.stdout.write(CLI_USAGE);
    return;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`sandbox: ${parsed.message}\n\n${CLI_USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { settings } = parsed;
  const started = performance.now();
  const options = sandboxOptionsOf(settings);
  const sandbox = await createSandbox(options);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const user = sandbox.users[0];
  const lines = [
    `Sandbox listening on ${sandbox.url}`,
    `  token             ${user?.token ?? ''}`,
    `  read-only token   ${user?.readOnlyToken ?? ''}`,
    ...(user?.planIds ?? []).map(
      (id) =>
        `  plan              ${id} (also 'default' and 'last-used'; ${settings.transactions} transactions, seed ${settings.seed})`,
    ),
    ...oauthLines(sandbox.origin, options.oauthClients ?? [], settings.oauthConsent),
    `  rate limit        ${settings.rateLimit === false ? 'off' : `${settings.rateLimit} requests per token per rolling hour`}`,
    ...(settings.latencyMs || settings.jitterMs
      ? [`  latency           ${settings.latencyMs} ms + up to ${settings.jitterMs} ms`]
      : []),
    ...settings.faults.map((rule) => `  fault             ${JSON.stringify(rule)}`),
    ...(settings.accountState === 'active'
      ? []
      : [
          `  account state     ${settings.accountState} (refused as the product refuses it; README, Account states)`,
        ]),
    `  seeded in ${seconds} s; press Ctrl+C to stop`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`\nsandbox: ${signal} received, closing\n`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
