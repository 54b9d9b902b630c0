/**
 * The port's front door: what is answered before yoga, decided in one place and in one order.
 * A request goes first to the wire replay (a held answer, `wire-replay.ts`), then to the direct
 * path of misses (a plain query run on yoga's envelop, `direct-miss.ts`), and otherwise reaches
 * `handler` (yoga, MCP, the other routes) as it came. What the wire read of a miss (its body,
 * credentials and fingerprint, `wireReading`) is what the direct path runs, so a miss is parsed,
 * checked and named once; that is why the two are composed here rather than by each caller.
 */
import type { RequestListener } from 'node:http';
import { type DirectMiss, withDirectMisses } from './direct-miss.js';
import { type WireReplay, withWireReplay } from './wire-replay.js';

/** The paths before yoga a gateway runs (either is off when absent). */
export interface FrontDoorPaths {
  readonly wireReplay?: WireReplay | undefined;
  readonly directMiss?: DirectMiss | undefined;
}

/** `handler` behind the gateway's paths before yoga. */
export function withFrontDoor(
  handler: RequestListener,
  { wireReplay, directMiss }: FrontDoorPaths,
): RequestListener {
  return withWireReplay(withDirectMisses(handler, directMiss), wireReplay);
}
