/** Helpers the client suites share: counting resolver calls and recording what goes on the wire. */
import { useOnResolve } from '@envelop/on-resolve';
import type { Plugin } from 'graphql-yoga';

export interface ResolverCounter {
  /** Add to `GatewayDeps.plugins`. */
  readonly plugin: Plugin;
  /** Resolver calls so far (default resolvers included). */
  count(): number;
}

export function countResolvers(): ResolverCounter {
  let calls = 0;
  const plugin = useOnResolve(() => {
    calls += 1;
  }) as Plugin;
  return { plugin, count: () => calls };
}

export interface WireRequest {
  readonly method: string;
  readonly url: URL;
  /** The GraphQL request as sent: from the query string (GET) or the JSON body (POST). */
  readonly params: { query?: string; extensions?: unknown; variables?: unknown };
}

/** A fetch that keeps every request it sends, for asserting what a client put on the wire. */
export function recordingFetch(): { fetch: typeof fetch; requests: WireRequest[] } {
  const requests: WireRequest[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const method = request.method;
    let params: WireRequest['params'];
    if (method === 'GET') {
      const json = (name: string) => {
        const raw = url.searchParams.get(name);
        return raw ? (JSON.parse(raw) as unknown) : undefined;
      };
      const query = url.searchParams.get('query') ?? undefined;
      params = {
        ...(query ? { query } : {}),
        extensions: json('extensions'),
        variables: json('variables'),
      };
    } else {
      params = (await request.clone().json()) as WireRequest['params'];
    }
    requests.push({ method, url, params });
    return fetch(request);
  };
  return { fetch: recording, requests };
}
