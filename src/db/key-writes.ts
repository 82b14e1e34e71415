// Which statements may change what a key lookup answers (projects/key-lookup.ts keeps those answers
// until such a change): a write that names `projects` or `api_keys`. False positives only cost a
// cache miss; the one write that runs all the time and changes nothing a lookup returns, the
// record of keys' last use (projects/key-lookup.ts: a statement for the keys used in 5 s, each
// key once a minute), is told apart so that it empties nothing.
const namesKeysTable = /^\s*(?:insert|update|delete|truncate|with|merge)\b[\s\S]*\b(?:projects|api_keys)\b/i;
const parameter = String.raw`(?:\$\d+|\?)`;
const recordsKeyUse = new RegExp(
  String.raw`^\s*update\s+"?api_keys"?\s+set\s+"?last_used_at"?\s*=\s*${parameter}\s+where\s+"?id"?\s+` +
    String.raw`in\s*\(\s*${parameter}(?:\s*,\s*${parameter})*\s*\)\s*$`,
  'i',
);

/** The answers by statement text: a few texts run over and over (the page-view writes). */
const known = new Map<string, boolean>();

export function mayChangeKeys(sql: string): boolean {
  let answer = known.get(sql);
  if (answer === undefined) {
    answer = namesKeysTable.test(sql) && !recordsKeyUse.test(sql);
    // Texts built at run time (lists of placeholders) are many: the map starts over when full.
    if (known.size >= 1000) known.clear();
    known.set(sql, answer);
  }
  return answer;
}
