// Two list helpers the content feature needs in several places: grouping rows by a key, and the
// byte-order comparison of strings that keeps reported lists the same on every machine.

/** The items grouped by `key`, each group in the order of `items`. */
export function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Compares by UTF-16 code units, as `<` does: unlike localeCompare, the same on every machine. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
