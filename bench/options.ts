/** Command-line options of `npm run bench`, with defaults that finish in a few minutes on 2 cores. */
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_AGE_MS } from '../src/config/config.js';

export interface BenchOptions {
  /** Fixed upstream latency added by the sandbox to every response, ms. @default 50 */
  latencyMs: number;
  /** Transactions of the large plan (the filtered page, the export figures). @default 100_000 */
  transactions: number;
  /** Transactions of the everyday plans (dashboard, account, month, write). @default 1_200 */
  planTransactions: number;
  /** Operations in flight at once during a load phase. @default 8 */
  concurrency: number;
  /** Longest time of one load phase, seconds. @default 8 */
  durationS: number;
  /** Most operations of one load phase. @default 20_000 */
  requests: number;
  /** Gateway max-age, ms (the "within" / "past" max-age figures move the gateway clock past it). @default DEFAULT_MAX_AGE_MS (30_000) */
  maxAgeMs: number;
  /** Where the JSON results go. @default bench/results/latest.json (subscriptions.json with --subscriptions) */
  out: string;
  quick: boolean;
  /** Run only the subscriptions benchmark (bench/subscriptions.ts). @default false */
  subscriptions: boolean;
  /** Run only the scale-out benchmark with this many instances (bench/instances.ts); 0: off. @default 0 */
  instances: number;
  /** Run only the large-plan benchmark (bench/large-plans.ts). @default false */
  large: boolean;
  /** With `large`: plan sizes in transactions. @default 100000,300000 (`--huge` adds 1000000) */
  largeSizes: number[];
  /** With `large`: runs of each measurement (medians reported). @default 3 */
  repeats: number;
  /** With `large` or `replay`: a second process keeps one core busy beside every measurement. @default false */
  loaded: boolean;
  /** Run only the warm-path benchmark against bare yoga and raw node:http (bench/floor.ts). @default false */
  floor: boolean;
  /** With `floor`: turns of the four servers (medians reported). @default 3 */
  rounds: number;
  /** With `floor` or `large`: profile the gateway children (`node --cpu-prof`, files in this directory). @default none */
  cpuProf: string | undefined;
  /** Run only the write benchmark (bench/writes.ts). @default false */
  writes: boolean;
  /** With `writes` or `summary`: writes of each kind (medians reported). @default 15 */
  turns: number;
  /** Run only the replay benchmark: answer-cache replays against raw node:http (bench/replay.ts). @default false */
  replay: boolean;
  /** Issue 34's figures in one table beside their targets (bench/summary.ts). @default false */
  summary: boolean;
  /** Run only the resume benchmark: `changes(since:)` after a day offline against a refetch (bench/resume.ts). @default false */
  resume: boolean;
}

/** With --instances: replicas go past max-age several times in a phase of a few seconds. */
const INSTANCES_MAX_AGE_MS = 5_000;

const HELP = `Usage: npm run bench -- [options]

  --latency <ms>            upstream latency added by the sandbox (default 50)
  --transactions <n>        transactions of the large plan (default 100000; --quick: 20000)
  --plan-transactions <n>   transactions of the everyday plans (default 1200)
  --concurrency <n>         operations in flight during load phases (default 8)
  --duration <s>            longest load phase in seconds (default 8; --quick: 2)
  --requests <n>            most operations per load phase (default 20000; --quick: 2000)
  --max-age <ms>            gateway max-age (default 30000)
  --out <file>              JSON results (default bench/results/latest.json)
  --quick                   small and short: a smoke run in well under a minute
  --subscriptions           only the live-updates benchmark: event latency, upstream calls per hour
                            for 1, 10 and 100 subscribers (uses --latency, --plan-transactions, --quick)
  --instances <n>           only the scale-out benchmark: n instances sharing one Redis against one
                            instance (needs redis-server, or REDIS_URL; max-age defaults to 5000 here)
  --large                   only the large-plan benchmark: cold load against curl, peak RSS, at
                            100000 and 300000 transactions (about 3 min)
  --huge                    with --large: also 1000000 transactions (about 5 min more, 3 GB of RAM)
  --sizes <n,n,...>         with --large: the plan sizes instead
  --repeats <n>             with --large: runs of each measurement, medians reported (default 3)
  --loaded                  with --large or --replay: a second process keeps one core busy beside
                            every measurement (the machine loaded as CI is; the output says so)
  --floor                   only the warm path: the gateway's warm dashboard against bare graphql-yoga
                            answering the same JSON, and the answer cache against raw node:http
  --rounds <n>              with --floor: turns of the four servers, medians reported (default 3)
  --cpu-prof <dir>          with --floor or --large: write CPU profiles of the gateway into <dir>
  --writes                  only writes: createTransaction through the gateway against the REST POST
                            (uses --latency, --turns)
  --turns <n>               with --writes or --summary: writes of each kind, medians (default 15)
  --replay                  only replays: the answer cache against raw node:http serving the same
                            bytes, with and without br, a client that only reads bytes (--rounds)
  --summary                 one table of issue 34's figures beside their targets, with the load average:
                            replays (--replay), a warm non-repeated dashboard (bench:warm-cpu), cold
                            loads against the parse floor at --sizes (--huge: 1000000 and its load with
                            default settings) and under CI-like load, writes (--writes), the resume
                            (--resume); --quick: small
  --resume                  only resuming after a day offline with 20 changes: one changes(since:)
                            against refetching the example app's screens, on --plan-transactions and
                            --transactions plans (bytes, time, upstream calls; uses --latency, --turns)
  --help
`;

function positiveInteger(
  name: string,
  raw: string | undefined,
  fallback: number,
  allowZero = false,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new RangeError(
      `--${name} must be ${allowZero ? 'a non-negative' : 'a positive'} integer, got '${raw}'`,
    );
  }
  return value;
}

export function parseBenchOptions(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      latency: { type: 'string' },
      transactions: { type: 'string' },
      'plan-transactions': { type: 'string' },
      concurrency: { type: 'string' },
      duration: { type: 'string' },
      requests: { type: 'string' },
      'max-age': { type: 'string' },
      out: { type: 'string' },
      quick: { type: 'boolean', default: false },
      subscriptions: { type: 'boolean', default: false },
      instances: { type: 'string' },
      large: { type: 'boolean', default: false },
      huge: { type: 'boolean', default: false },
      loaded: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      repeats: { type: 'string' },
      floor: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      'cpu-prof': { type: 'string' },
      writes: { type: 'boolean', default: false },
      turns: { type: 'string' },
      summary: { type: 'boolean', default: false },
      replay: { type: 'boolean', default: false },
      resume: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const quick = values.quick === true;
  const instances = positiveInteger('instances', values.instances, 0, true);
  return {
    latencyMs: positiveInteger('latency', values.latency, 50, true),
    transactions: positiveInteger('transactions', values.transactions, quick ? 20_000 : 100_000),
    planTransactions: positiveInteger('plan-transactions', values['plan-transactions'], 1_200),
    concurrency: positiveInteger('concurrency', values.concurrency, 8),
    durationS: positiveInteger('duration', values.duration, quick ? 2 : 8),
    requests: positiveInteger('requests', values.requests, quick ? 2_000 : 20_000),
    maxAgeMs: positiveInteger(
      'max-age',
      values['max-age'],
      instances > 0 ? INSTANCES_MAX_AGE_MS : DEFAULT_MAX_AGE_MS,
    ),
    out:
      values.out ??
      (instances > 0
        ? 'bench/results/instances.json'
        : values.subscriptions
          ? 'bench/results/subscriptions.json'
          : values.large
            ? 'bench/results/large-plans.json'
            : values.floor
              ? 'bench/results/floor.json'
              : values.replay
                ? 'bench/results/replay.json'
                : values.writes
                  ? 'bench/results/writes.json'
                  : values.summary
                    ? 'bench/results/summary.json'
                    : values.resume
                      ? 'bench/results/resume.json'
                      : 'bench/results/latest.json'),
    quick,
    subscriptions: values.subscriptions === true,
    instances,
    large: values.large === true,
    largeSizes:
      values.sizes === undefined
        ? [100_000, 300_000, ...(values.huge ? [1_000_000] : [])]
        : values.sizes.split(',').map((size) => positiveInteger('sizes', size.trim(), 0)),
    repeats: positiveInteger('repeats', values.repeats, 3),
    loaded: values.loaded === true,
    floor: values.floor === true,
    rounds: positiveInteger('rounds', values.rounds, 3),
    cpuProf: values['cpu-prof'],
    writes: values.writes === true,
    turns: positiveInteger('turns', values.turns, 15),
    summary: values.summary === true,
    replay: values.replay === true,
    resume: values.resume === true,
  };
}

export { HELP };
