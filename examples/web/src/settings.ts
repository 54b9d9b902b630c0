/**
 * Where the gateway is and which token to send. `npm start` serves the gateway at
 * localhost:4000 over an embedded sandbox whose demo token is `sandbox-demo-token`: the
 * defaults. `?gateway=...&token=...` in the page's address overrides them (and is kept for the
 * next visit), as the end-to-end test does.
 */
export interface Settings {
  /** The GraphQL endpoint over HTTP; WebSocket at the same path. */
  readonly gateway: string;
  readonly token: string;
}

const DEFAULTS: Settings = {
  gateway: 'http://localhost:4000/graphql',
  token: 'sandbox-demo-token',
};

export function readSettings(location: Location, storage: Storage): Settings {
  const query = new URLSearchParams(location.search);
  const pick = (name: keyof Settings): string => {
    const value = query.get(name) ?? storage.getItem(`plans.${name}`) ?? DEFAULTS[name];
    storage.setItem(`plans.${name}`, value);
    return value;
  };
  return { gateway: pick('gateway'), token: pick('token') };
}

/** The WebSocket URL of an HTTP GraphQL endpoint. */
export function webSocketUrl(gateway: string): string {
  return gateway.replace(/^http/, 'ws');
}
