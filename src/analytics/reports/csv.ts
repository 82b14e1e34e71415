// CSV answers (RFC 4180: CRLF line ends, fields quoted when they hold a comma, quote or line break)
// through csv-stringify, with a guard against formula injection: a text cell that a spreadsheet
// would run as a formula (starting with =, +, -, @, a tab or a carriage return) gets a leading `'`.
import { stringify } from 'csv-stringify/sync';

const formulaStart = /^[=+\-@\t\r]/;

export function guardCell(cell: string | number): string | number {
  return typeof cell === 'string' && formulaStart.test(cell) ? `'${cell}` : cell;
}

export function toCsv(header: string[], rows: Array<Array<string | number>>): string {
  return stringify([header, ...rows.map((row) => row.map(guardCell))], {
    record_delimiter: 'windows',
    // A lone CR or LF breaks a row in most readers, not only CRLF.
    quoted_match: /[\r\n]/,
  });
}

/** Whether a request asks for CSV: `format=csv`, or (without `format`) an Accept header preferring it. */
export function wantsCsv(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === 'csv';
  if (accept === undefined) return false;
  const ranked = accept
    .split(',')
    .map((part, index) => {
      const [type, ...parameters] = part.trim().toLowerCase().split(';');
      const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim(), q: q === undefined ? 1 : Number(q.slice(2)) || 0, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const first = ranked.find((entry) =>
    ['text/csv', 'application/json', 'application/*', '*/*'].includes(entry.type),
  );
  return first?.type === 'text/csv';
}
