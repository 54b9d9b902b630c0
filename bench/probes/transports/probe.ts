/** Probes of one area, by the item number of the issue they measure ("1", "2", ...). */
export type Probes = Record<string, () => Promise<void>>;
