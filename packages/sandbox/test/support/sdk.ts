/**
 * The official SDK pointed at the sandbox, recording each raw exchange: the SDK turns `null`
 * into `undefined` and drops the status, and the shape checks need both.
 */
import type { CurrencyFormat } from '@plans-gateway/rest-contract';
import * as ynab from 'ynab';
import { dataOf } from './rest.js';
import { startTestSandbox, type TestSandbox, type TestSandboxOptions, TOKEN } from './sandbox.js';

export interface RecordedExchange {
  method: string;
  url: string;
  status: number;
  /** Parsed JSON body (`undefined` when not JSON). */
  body: unknown;
}

/** `ynab.API` whose requests go through a recording fetch. */
export class RecordingApi extends ynab.API {
  readonly exchanges: RecordedExchange[] = [];

  constructor(accessToken: string, endpointUrl: string) {
    super(accessToken, endpointUrl);
    const exchanges = this.exchanges;
    const recordingFetch = async (
      input: string | URL | Request,
      init?: RequestInit,
    ): Promise<Response> => {
      const response = await fetch(input, init);
      const text = await response.clone().text();
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = undefined;
      }
      exchanges.push({
        method: init?.method ?? 'GET',
        url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        status: response.status,
        body,
      });
      return response;
    };
    // The SDK builds each resource API lazily from this configuration.
    this._configuration = new ynab.Configuration({
      accessToken,
      basePath: endpointUrl,
      fetchApi: recordingFetch,
    });
  }

  /**
   * The SDK ships `MoneyMovementsApi` but `ynab.API` has no getter for it; build it the same way
   * the other resource APIs are built.
   */
  get moneyMovements(): ynab.MoneyMovementsApi {
    this.moneyMovementsApi ??= new ynab.MoneyMovementsApi(this._configuration);
    return this.moneyMovementsApi;
  }

  private moneyMovementsApi: ynab.MoneyMovementsApi | undefined;

  /** The most recent exchange (throws when none happened). */
  last(): RecordedExchange {
    const exchange = this.exchanges.at(-1);
    if (exchange === undefined) throw new Error('no request was recorded');
    return exchange;
  }
}

/** The rejection of an SDK call: the SDK throws the parsed error body. */
export async function sdkError(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error: unknown) {
    return error;
  }
  throw new Error('expected the SDK call to fail');
}

/** What an SDK suite starts with: a sandbox, the recording SDK client on it, the plan's currency. */
export interface SdkSuite {
  box: TestSandbox;
  api: RecordingApi;
  currency: CurrencyFormat | null;
}

export async function startSdkSuite(options: TestSandboxOptions): Promise<SdkSuite> {
  const box = await startTestSandbox(options);
  const api = new RecordingApi(TOKEN, box.sandbox.url);
  const settings = dataOf(
    await box.rest.get(`/plans/${box.planId}/settings`),
    'getPlanSettingsById',
  ).settings;
  return { box, api, currency: settings.currency_format };
}
