/**
 * Scheduled transactions ordered by `date_next` (then id), so finding what has come due looks at
 * those due and nothing else. Entries are never updated in place: a new `date_next` adds an entry,
 * and an entry that no longer matches its scheduled transaction (moved, entered or deleted since)
 * is dropped when it reaches the top. The store checks that before acting on an entry.
 */
import type { IsoDate } from '@plans-gateway/rest-contract';

export interface DueEntry {
  readonly date: IsoDate;
  readonly id: string;
}

export interface DueQueue {
  push(date: IsoDate, id: string): void;
  /** The earliest entry, without removing it. */
  peek(): DueEntry | undefined;
  pop(): DueEntry | undefined;
  readonly size: number;
}

function before(a: DueEntry, b: DueEntry): boolean {
  return a.date < b.date || (a.date === b.date && a.id < b.id);
}

/** A binary min-heap of due entries. */
export function createDueQueue(): DueQueue {
  const heap: DueEntry[] = [];

  const swap = (i: number, j: number) => {
    const held = heap[i] as DueEntry;
    heap[i] = heap[j] as DueEntry;
    heap[j] = held;
  };

  return {
    push(date, id) {
      heap.push({ date, id });
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!before(heap[i] as DueEntry, heap[parent] as DueEntry)) break;
        swap(i, parent);
        i = parent;
      }
    },
    peek: () => heap[0],
    pop() {
      const top = heap[0];
      const last = heap.pop();
      if (top === undefined || last === undefined || heap.length === 0) return top;
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && before(heap[left] as DueEntry, heap[smallest] as DueEntry))
          smallest = left;
        if (right < heap.length && before(heap[right] as DueEntry, heap[smallest] as DueEntry))
          smallest = right;
        if (smallest === i) break;
        swap(i, smallest);
        i = smallest;
      }
      return top;
    },
    get size() {
      return heap.length;
    },
  };
}
