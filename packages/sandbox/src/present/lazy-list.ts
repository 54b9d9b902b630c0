/**
 * A list presented while the response is written rather than before: a handler hands back a
 * `LazyList` where the REST shape has an array, and the dispatcher streams it item by item
 * (http/json-stream.ts). A plan of a million transactions exports about 600 MB of JSON, more than
 * one string can hold and more memory than its records take; a lazy list keeps only one item's
 * text in memory at a time.
 *
 * The items are taken from a snapshot of which records were listed when the request came (the
 * handler copies the record references), and each is presented when its turn comes, so an answer
 * that streams for seconds never skips or repeats an item when writes land meanwhile. Such a write
 * may already show in an item; the answer's `server_knowledge` is the value before it, so the
 * client's next delta request brings that change again, and its replica ends up exact.
 */
export class LazyList<T> {
  /** `produce` is called when the list is written; it must walk a snapshot taken beforehand. */
  constructor(private readonly produce: () => Iterable<T>) {}

  /** The items, presented one at a time. */
  [Symbol.iterator](): Iterator<T> {
    return this.produce()[Symbol.iterator]();
  }
}

/** A REST shape in which any array may be a `LazyList` of the same items. */
export type Streamable<T> = T extends readonly (infer Item)[]
  ? Streamable<Item>[] | LazyList<Streamable<Item>>
  : T extends object
    ? { [K in keyof T]: Streamable<T[K]> }
    : T;
